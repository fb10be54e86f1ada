/** The write-back of values stored locally during an outage: each once, with its time left, never over a newer one. */
import { describe, expect, it, vi } from 'vitest';
import { ValueReplay } from './value-replay.ts';

function replayOver(local: Map<string, string>, taken = new Set<string>()) {
  const written: Array<{ name: string; value: string; ttlMs: number }> = [];
  let failing = false;
  const replay = new ValueReplay(
    async (name, value, ttlMs) => {
      if (failing) throw new Error('Connection is closed.');
      if (taken.has(name)) return false; // SET NX refused: another instance wrote one since
      written.push({ name, value, ttlMs });
      return true;
    },
    async (name) => local.get(name),
    3,
  );
  return { replay, written, fail: (value: boolean) => (failing = value) };
}

describe('ValueReplay', () => {
  it('writes each waiting value once, with the time it had left', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const local = new Map([['a', 'A']]);
      const { replay, written } = replayOver(local);
      replay.add('a', 60_000);
      vi.advanceTimersByTime(10_000);
      await replay.run();
      expect(written).toEqual([{ name: 'a', value: 'A', ttlMs: 50_000 }]);
      expect(replay.size).toBe(0);
      await replay.run();
      expect(written).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a name another instance wrote since is left as it is, and not counted as shared', async () => {
    const { replay, written } = replayOver(new Map([['a', 'A']]), new Set(['a']));
    replay.add('a', 60_000);
    await replay.run();
    expect(written).toEqual([]);
    expect(replay.shared).toBe(0);
    expect(replay.size).toBe(0);
  });

  it('a failure stops the round and keeps what is left for the next one', async () => {
    const { replay, written, fail } = replayOver(
      new Map([
        ['a', 'A'],
        ['b', 'B'],
      ]),
    );
    replay.add('a', 60_000);
    replay.add('b', 60_000);
    fail(true);
    await replay.run();
    expect(replay.size).toBe(2);
    fail(false);
    await replay.run();
    expect(written.map((entry) => entry.name)).toEqual(['a', 'b']);
    expect(replay.shared).toBe(2);
  });

  it('values gone from local state (expired, evicted) are dropped; beyond the limit the oldest stay local only', async () => {
    const { replay, written } = replayOver(
      new Map([
        ['b', 'B'],
        ['c', 'C'],
        ['d', 'D'],
      ]),
    );
    for (const name of ['a', 'b', 'c', 'd']) replay.add(name, 60_000);
    expect(replay.size).toBe(3);
    replay.add('gone', 60_000);
    await replay.run();
    expect(written.map((entry) => entry.name)).toEqual(['c', 'd']);
    expect(replay.size).toBe(0);
  });
});
