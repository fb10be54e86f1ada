import { afterEach, describe, expect, it, vi } from 'vitest';
import { TtlStrings } from './ttl-strings.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('TtlStrings', () => {
  it('bounded in bytes: the oldest go first, a string larger than the cap is not kept', () => {
    const strings = new TtlStrings({ maxBytes: 100 });
    strings.set('a', 'x'.repeat(20), 60_000);
    strings.set('b', 'y'.repeat(20), 60_000);
    strings.set('c', 'z'.repeat(20), 60_000);
    expect([strings.get('a'), strings.get('b'), strings.get('c')]).toEqual([
      undefined,
      'y'.repeat(20),
      'z'.repeat(20),
    ]);
    expect(strings.set('big', 'w'.repeat(51), 60_000)).toBe(false);
    expect(strings.bytes).toBe(80);
    strings.clear();
  });

  it('the sweep drops every expired string, even behind one that lives longer, unread; then its timer stops', () => {
    vi.useFakeTimers();
    let now = 0;
    const strings = new TtlStrings({ now: () => now, sweepMs: 1000 });
    strings.set('long', 'l'.repeat(10), 600_000);
    strings.set('short', 's'.repeat(10), 1000);
    now = 2000;
    vi.advanceTimersByTime(1000);
    expect(strings.bytes).toBe(20);
    now = 700_000;
    vi.advanceTimersByTime(1000);
    expect(strings.bytes).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
