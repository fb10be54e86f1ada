/**
 * The availability state machine's behaviour, run against any store (memory, Redis): the same
 * transitions must hold whichever store applies them.
 */
import { describe, expect, it } from 'vitest';
import { Availability, type AvailabilityStore } from '../../src/routing/availability.ts';

/** Creates a fresh store (a Redis store on a fresh key prefix) and, optionally, a second view of it. */
export type StoreFactory = () => Promise<AvailabilityStore> | AvailabilityStore;

/** Registers the state-machine tests for stores made by `createStore`. */
export function availabilitySuite(name: string, createStore: StoreFactory): void {
  async function machine() {
    let now = 1_000_000;
    const store = await createStore();
    const availability = new Availability({
      store,
      now: () => now,
      policy: { failureThreshold: 3, cooldownMs: 30_000, longRetryAfterMs: 60_000, probeTimeoutMs: 10_000 },
    });
    return { availability, store, advance: (ms: number) => (now += ms), at: () => now };
  }

  async function opened() {
    const state = await machine();
    for (let count = 0; count < 3; count++) await state.availability.failure('model:a');
    return state;
  }

  describe(`availability state machine over ${name} (fake clock)`, () => {
    it('closed stays closed below the failure threshold; a success resets the count', async () => {
      const { availability, store } = await machine();
      await availability.failure('model:a');
      await availability.failure('model:a');
      expect(await availability.state('model:a')).toBe('closed');
      await availability.success('model:a');
      expect(await store.get('model:a')).toEqual({ state: 'closed', failures: 0 });
      await availability.failure('model:a');
      await availability.failure('model:a');
      expect(await availability.check('model:a')).toEqual({ allowed: true });
    });

    it('closed → open after repeated failures; open refuses until the cooldown ends', async () => {
      const { availability, advance, at } = await opened();
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
      const { availability, advance } = await machine();
      expect(await availability.failure('model:a', 120)).toBe('open');
      advance(60_000);
      expect((await availability.check('model:a')).allowed).toBe(false);
      advance(60_000);
      expect(await availability.check('model:a')).toEqual({ allowed: true, probe: expect.any(String) });
    });

    it('failures with a short retry-after open the circuit at the threshold for that long, not the longer cooldown', async () => {
      const { availability, advance, at } = await machine();
      await availability.failure('model:a', 2);
      await availability.failure('model:a', 2);
      expect(await availability.failure('model:a', 2)).toBe('open');
      expect(await availability.check('model:a')).toEqual({
        allowed: false,
        state: 'open',
        until: at() + 2_000,
      });
      advance(2_000);
      expect(await availability.check('model:a')).toEqual({ allowed: true, probe: expect.any(String) });
    });

    it('a huge retry-after opens the circuit for at most the cap (1 hour)', async () => {
      const { availability, at } = await machine();
      expect(await availability.failure('model:a', 10 ** 9)).toBe('open');
      expect(await availability.check('model:a')).toEqual({
        allowed: false,
        state: 'open',
        until: at() + 3_600_000,
      });
      expect(await availability.failure('model:b', Number.POSITIVE_INFINITY)).toBe('open');
      expect(await availability.check('model:b')).toMatchObject({ until: at() + 3_600_000 });
    });

    it('open → half-open after the cooldown admits one probe; others wait', async () => {
      const { availability, advance } = await opened();
      advance(30_000);
      expect(await availability.check('model:a')).toEqual({ allowed: true, probe: expect.any(String) });
      expect(await availability.state('model:a')).toBe('half-open');
      expect(await availability.check('model:a')).toEqual({ allowed: false, state: 'half-open' });
    });

    it('fifty concurrent checks past the cooldown let exactly one probe through', async () => {
      const { availability, advance } = await opened();
      advance(30_000);
      const admissions = await Promise.all(Array.from({ length: 50 }, () => availability.check('model:a')));
      expect(admissions.filter((admission) => admission.allowed)).toHaveLength(1);
    });

    it('half-open → closed when the probe succeeds', async () => {
      const { availability, advance } = await opened();
      advance(30_000);
      await availability.check('model:a');
      await availability.success('model:a');
      expect(await availability.state('model:a')).toBe('closed');
      expect(await availability.check('model:a')).toEqual({ allowed: true });
    });

    it('half-open → open again when the probe fails, for another cooldown', async () => {
      const { availability, advance, at } = await opened();
      advance(30_000);
      await availability.check('model:a');
      expect(await availability.failure('model:a')).toBe('open');
      expect(await availability.check('model:a')).toEqual({
        allowed: false,
        state: 'open',
        until: at() + 30_000,
      });
    });

    it('a probe that proves nothing (released) frees the slot at once for the next call', async () => {
      const { availability, advance } = await opened();
      advance(30_000);
      const probe = await availability.check('model:a');
      expect(probe).toMatchObject({ allowed: true });
      await availability.release('model:a', (probe as { probe: string }).probe);
      expect(await availability.state('model:a')).toBe('open');
      expect(await availability.check('model:a')).toEqual({ allowed: true, probe: expect.any(String) });
    });

    it('a stale probe release does not free a newer probe’s slot', async () => {
      const { availability, advance } = await opened();
      advance(30_000);
      const first = (await availability.check('model:a')) as { probe: string };
      advance(10_000); // the first probe timed out: a second one goes
      const second = (await availability.check('model:a')) as { probe: string };
      expect(second.probe).not.toBe(first.probe);
      await availability.release('model:a', first.probe);
      expect(await availability.check('model:a')).toEqual({ allowed: false, state: 'half-open' });
    });

    it('a probe that never reports frees the half-open slot after the probe timeout', async () => {
      const { availability, advance } = await opened();
      advance(30_000);
      await availability.check('model:a');
      advance(10_000);
      expect(await availability.check('model:a')).toEqual({ allowed: true, probe: expect.any(String) });
    });

    it('a circuit keeps what opened it while open and half-open (the opening failure’s cause); a success forgets it', async () => {
      const { availability, store, advance, at } = await machine();
      await availability.failure('model:a', undefined, 'rate_limit');
      await availability.failure('model:a');
      expect(await store.get('model:a')).toEqual({ state: 'closed', failures: 2 });
      expect(await availability.failure('model:a', undefined, 'out_of_credit')).toBe('open');
      expect(await availability.check('model:a')).toEqual({
        allowed: false,
        state: 'open',
        until: at() + 30_000,
        cause: 'out_of_credit',
      });
      advance(30_000);
      const probe = (await availability.check('model:a')) as { probe: string };
      expect(await availability.check('model:a')).toEqual({
        allowed: false,
        state: 'half-open',
        cause: 'out_of_credit',
      });
      await availability.release('model:a', probe.probe);
      expect(await store.get('model:a')).toMatchObject({ state: 'open', cause: 'out_of_credit' });
      const second = (await availability.check('model:a')) as { probe: string };
      // The probe's own failure reopens it: its cause is the one kept.
      expect(await availability.failure('model:a', 2, 'rate_limit', second.probe)).toBe('open');
      expect(await availability.check('model:a')).toEqual({
        allowed: false,
        state: 'open',
        until: at() + 2_000,
        cause: 'rate_limit',
      });
      advance(2_000);
      await availability.check('model:a');
      await availability.success('model:a');
      expect(await store.get('model:a')).toEqual({ state: 'closed', failures: 0 });
      for (let count = 0; count < 3; count++) await availability.failure('model:b');
      const refused = await availability.check('model:b');
      expect(refused).toEqual({ allowed: false, state: 'open', until: at() + 30_000 });
      expect('cause' in refused).toBe(false);
    });

    it('a failure counted while the circuit is open keeps the cause of the one that opened it', async () => {
      const { availability, store, at } = await machine();
      for (let count = 0; count < 3; count++)
        await availability.failure('model:a', undefined, 'out_of_credit');
      // A call in flight when it opened ends with a network failure (no cause of its own), then a rate limit.
      expect(await availability.failure('model:a')).toBe('open');
      expect(await store.get('model:a')).toMatchObject({
        state: 'open',
        failures: 4,
        cause: 'out_of_credit',
      });
      expect(await availability.failure('model:a', 2, 'rate_limit')).toBe('open');
      // Before, each re-opened it as its own: no cause (a retryable 503), then `rate_limit`; and
      // the rate limit's short retry-after does not shorten the open time.
      expect(await availability.check('model:a')).toEqual({
        allowed: false,
        state: 'open',
        until: at() + 30_000,
        cause: 'out_of_credit',
      });
      // And an open circuit with no cause (server errors) does not take a later failure's.
      for (let count = 0; count < 3; count++) await availability.failure('model:b');
      await availability.failure('model:b', undefined, 'out_of_credit');
      const refused = await availability.check('model:b');
      expect(refused).toEqual({ allowed: false, state: 'open', until: at() + 30_000 });
    });

    it('a failure counted while open extends the open time but never shortens it', async () => {
      const { availability, advance, at } = await machine();
      const opened = at();
      // A 429 with retry-after 3000 s opens it at once until then.
      expect(await availability.failure('model:a', 3_000, 'rate_limit')).toBe('open');
      advance(1_000);
      expect(await availability.failure('model:a')).toBe('open');
      advance(1_000);
      expect(await availability.failure('model:a')).toBe('open');
      // Before, each straggler reopened it for the cooldown from its own time: until +32 s.
      expect(await availability.check('model:a')).toEqual({
        allowed: false,
        state: 'open',
        until: opened + 3_000_000,
        cause: 'rate_limit',
      });
      advance(40_000);
      expect((await availability.check('model:a')).allowed).toBe(false);
      // A later failure whose own open time ends later does extend it.
      for (let count = 0; count < 3; count++) await availability.failure('model:b');
      advance(20_000);
      await availability.failure('model:b');
      expect(await availability.check('model:b')).toMatchObject({ state: 'open', until: at() + 30_000 });
    });

    it('half-open: a leftover failure of an earlier call keeps the cause; only the probe’s own failure renames it', async () => {
      const { availability, store, advance, at } = await machine();
      for (let count = 0; count < 3; count++)
        await availability.failure('model:a', undefined, 'out_of_credit');
      advance(30_000);
      const probe = (await availability.check('model:a')) as { probe: string };
      expect(probe.probe).toEqual(expect.any(String));
      // A call from before the opening fails (network: no cause) while the probe is in flight.
      expect(await availability.failure('model:a')).toBe('open');
      // Before: { state: 'open', failures: 4, reopenAt } with no cause (a retryable 503).
      expect(await store.get('model:a')).toEqual({
        state: 'open',
        failures: 4,
        reopenAt: at() + 30_000,
        cause: 'out_of_credit',
      });
      // The next probe's own failure (a server error: no cause) does rename it.
      advance(30_000);
      const next = (await availability.check('model:a')) as { probe: string };
      expect(await availability.failure('model:a', undefined, undefined, next.probe)).toBe('open');
      expect(await store.get('model:a')).toEqual({ state: 'open', failures: 5, reopenAt: at() + 30_000 });
    });

    it('keys are independent (provider vs model)', async () => {
      const { availability } = await machine();
      for (let count = 0; count < 3; count++) await availability.failure('provider:x');
      expect(await availability.state('provider:x')).toBe('open');
      expect(await availability.state('model:x:m')).toBe('closed');
    });

    it('concurrent failures from many callers are all counted (no lost update)', async () => {
      const { availability, store } = await machine();
      await Promise.all(Array.from({ length: 2 }, () => availability.failure('model:c')));
      expect(await store.get('model:c')).toMatchObject({ state: 'closed', failures: 2 });
      await Promise.all(Array.from({ length: 40 }, () => availability.failure('model:c')));
      expect(await store.get('model:c')).toMatchObject({ state: 'open', failures: 42 });
    });
  });
}
