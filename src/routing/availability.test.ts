import { describe, expect, it } from 'vitest';
import { Availability, createMemoryStateStore } from './availability.ts';

function machine() {
  let now = 1_000_000;
  const store = createMemoryStateStore();
  const availability = new Availability({
    store,
    now: () => now,
    policy: { failureThreshold: 3, cooldownMs: 30_000, longRetryAfterMs: 60_000, probeTimeoutMs: 10_000 },
  });
  return { availability, store, advance: (ms: number) => (now += ms), at: () => now };
}

describe('availability state machine (fake clock)', () => {
  it('closed stays closed below the failure threshold; a success resets the count', async () => {
    const { availability, store } = machine();
    await availability.failure('model:a');
    await availability.failure('model:a');
    expect(await availability.state('model:a')).toBe('closed');
    await availability.success('model:a');
    expect(store.records.get('model:a')).toEqual({ state: 'closed', failures: 0 });
    await availability.failure('model:a');
    await availability.failure('model:a');
    expect(await availability.check('model:a')).toEqual({ allowed: true, probe: false });
  });

  it('closed → open after repeated failures; open refuses until the cooldown ends', async () => {
    const { availability, advance, at } = machine();
    for (let count = 0; count < 3; count++) await availability.failure('model:a');
    expect(await availability.state('model:a')).toBe('open');
    expect(await availability.check('model:a')).toEqual({
      allowed: false,
      state: 'open',
      until: at() + 30_000,
    });
    advance(29_999);
    expect((await availability.check('model:a')).allowed).toBe(false);
  });

  it('closed → open at once on a long retry-after, for that long', async () => {
    const { availability, advance } = machine();
    expect(await availability.failure('model:a', 120)).toBe('open');
    advance(60_000);
    expect((await availability.check('model:a')).allowed).toBe(false);
    advance(60_000);
    expect(await availability.check('model:a')).toEqual({ allowed: true, probe: true });
  });

  it('open → half-open after the cooldown admits one probe; others wait', async () => {
    const { availability, advance } = machine();
    for (let count = 0; count < 3; count++) await availability.failure('model:a');
    advance(30_000);
    expect(await availability.check('model:a')).toEqual({ allowed: true, probe: true });
    expect(await availability.state('model:a')).toBe('half-open');
    expect(await availability.check('model:a')).toEqual({ allowed: false, state: 'half-open' });
  });

  it('half-open → closed when the probe succeeds', async () => {
    const { availability, advance } = machine();
    for (let count = 0; count < 3; count++) await availability.failure('model:a');
    advance(30_000);
    await availability.check('model:a');
    await availability.success('model:a');
    expect(await availability.state('model:a')).toBe('closed');
    expect(await availability.check('model:a')).toEqual({ allowed: true, probe: false });
  });

  it('half-open → open again when the probe fails, for another cooldown', async () => {
    const { availability, advance, at } = machine();
    for (let count = 0; count < 3; count++) await availability.failure('model:a');
    advance(30_000);
    await availability.check('model:a');
    expect(await availability.failure('model:a')).toBe('open');
    expect(await availability.check('model:a')).toEqual({
      allowed: false,
      state: 'open',
      until: at() + 30_000,
    });
  });

  it('a probe that never reports frees the half-open slot after the probe timeout', async () => {
    const { availability, advance } = machine();
    for (let count = 0; count < 3; count++) await availability.failure('model:a');
    advance(30_000);
    await availability.check('model:a');
    advance(10_000);
    expect(await availability.check('model:a')).toEqual({ allowed: true, probe: true });
  });

  it('keys are independent (provider vs model)', async () => {
    const { availability } = machine();
    for (let count = 0; count < 3; count++) await availability.failure('provider:x');
    expect(await availability.state('provider:x')).toBe('open');
    expect(await availability.state('model:x:m')).toBe('closed');
  });

  it('works over an asynchronous store', async () => {
    const records = new Map();
    const availability = new Availability({
      store: {
        get: async (key) => records.get(key),
        set: async (key, value) => void records.set(key, value),
      },
      policy: { failureThreshold: 1 },
    });
    await availability.failure('model:a');
    expect((await availability.check('model:a')).allowed).toBe(false);
  });
});
