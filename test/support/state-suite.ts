/**
 * The state store's behaviour (rate limits, budgets, stored values), run against any store: the
 * memory store and the Redis store must agree on every rule.
 */
import { describe, expect, it } from 'vitest';
import type { Reservation, StateStore, ValueGroupOptions } from '../../src/state/types.ts';

/** Creates a fresh, empty store over the given clock (and its stored values' groups, when given). */
export type StateStoreFactory = (
  now: () => number,
  groups?: ValueGroupOptions,
) => Promise<StateStore> | StateStore;

/** Registers the state-store tests. */
export function stateSuite(name: string, createStore: StateStoreFactory): void {
  async function store(groups?: ValueGroupOptions) {
    // 2026-11-26T10:00:00Z: mid-day, mid-month.
    let now = Date.UTC(2026, 10, 26, 10);
    const created = await createStore(() => now, groups);
    return { store: created, advance: (ms: number) => (now += ms), at: () => now };
  }

  const reservationOf = (admission: { allowed: boolean }) =>
    (admission as unknown as { reservation: Reservation }).reservation;

  describe(`state store over ${name}`, () => {
    it('requests per minute: at most N in the rolling 60 s window — 100 at t=0, none at t=59.9 s, 100 again at t=60 s', async () => {
      const { store: state, advance } = await store();
      const limits = { requestsPerMinute: 100 };
      const admitMany = async (count: number) => {
        const all = await Promise.all(
          Array.from({ length: count }, () => state.admit({ key: 'team-a', tokens: 10, limits })),
        );
        return all.filter((admission) => admission.allowed).length;
      };
      expect(await admitMany(150)).toBe(100);
      expect(await state.admit({ key: 'team-a', tokens: 10, limits })).toEqual({
        allowed: false,
        reason: 'rate_limit',
        limit: 'requests',
        retryAfterSeconds: 60,
      });
      advance(59_900);
      expect(await admitMany(50)).toBe(0);
      expect(await state.admit({ key: 'team-a', tokens: 10, limits })).toMatchObject({
        allowed: false,
        retryAfterSeconds: 1, // 100 ms, rounded up
      });
      advance(100); // t = 60 s: the hundred of t = 0 leave the window together
      expect(await admitMany(150)).toBe(100);
      expect((await state.admit({ key: 'team-b', tokens: 10, limits })).allowed).toBe(true);
    });

    it('requests per minute: admissions resume one by one as the oldest leave the window (retry-after names when)', async () => {
      const { store: state, advance } = await store();
      const limits = { requestsPerMinute: 3 };
      const admit = () => state.admit({ key: 'k', tokens: 1, limits });
      for (const step of [0, 10_000, 20_000]) {
        advance(step === 0 ? 0 : 10_000);
        expect((await admit()).allowed).toBe(true); // t = 0, 10, 20 s
      }
      advance(25_000); // t = 45 s: full until t = 60 s
      expect(await admit()).toMatchObject({ allowed: false, retryAfterSeconds: 15 });
      advance(15_000); // t = 60 s: the first left
      expect((await admit()).allowed).toBe(true);
      expect(await admit()).toMatchObject({ allowed: false, retryAfterSeconds: 10 });
      advance(9_999);
      expect((await admit()).allowed).toBe(false);
      advance(1); // t = 70 s: the second left
      expect((await admit()).allowed).toBe(true);
    });

    it('requests per minute: over a random run no rolling 60 s window holds more than N, and nothing is refused below N', async () => {
      const { store: state, advance, at } = await store();
      const rpm = 7;
      const limits = { requestsPerMinute: rpm };
      let seed = 21;
      const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
      const admitted: number[] = [];
      for (let count = 0; count < 150; count++) {
        advance(Math.floor(random() * 6_000));
        const inWindow = admitted.filter((time) => time > at() - 60_000).length;
        const admission = await state.admit({ key: 'k', tokens: 1, limits });
        expect(admission.allowed).toBe(inWindow < rpm);
        if (admission.allowed) admitted.push(at());
      }
      for (const start of admitted)
        expect(admitted.filter((time) => time >= start && time < start + 60_000).length).toBeLessThanOrEqual(
          rpm,
        );
      expect(admitted.length).toBeGreaterThan(rpm * 2);
    });

    it('tokens per minute: a late clock reading (an instance whose call arrives after a newer one) refills nothing twice', async () => {
      const { store: state, advance } = await store();
      const limits = { tokensPerMinute: 60 }; // one a second
      for (let count = 0; count < 60; count++) await state.admit({ key: 'k', tokens: 1, limits });
      advance(10_000);
      expect((await state.admit({ key: 'k', tokens: 1, limits })).allowed).toBe(true);
      advance(-5_000); // another instance's reading, taken earlier, arrives now
      expect((await state.admit({ key: 'k', tokens: 1, limits })).allowed).toBe(true);
      advance(5_000);
      // 10 s refilled 10: two taken, 8 left — not 13 (the 5 s counted again).
      const admitted = [];
      for (let count = 0; count < 20; count++)
        admitted.push((await state.admit({ key: 'k', tokens: 1, limits })).allowed);
      expect(admitted.filter(Boolean)).toHaveLength(8);
    });

    it('fifty concurrent admissions against 10 requests per minute admit exactly 10', async () => {
      const { store: state } = await store();
      const limits = { requestsPerMinute: 10 };
      const all = await Promise.all(
        Array.from({ length: 50 }, () => state.admit({ key: 'k', tokens: 1, limits })),
      );
      expect(all.filter((admission) => admission.allowed)).toHaveLength(10);
    });

    it('tokens per minute: reserved from the estimate, reconciled with the billed tokens', async () => {
      const { store: state } = await store();
      const limits = { tokensPerMinute: 1000 };
      const first = await state.admit({ key: 'k', tokens: 600, limits });
      expect(first.allowed).toBe(true);
      const refused = await state.admit({ key: 'k', tokens: 600, limits });
      expect(refused).toMatchObject({ allowed: false, reason: 'rate_limit', limit: 'tokens' });
      expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBe(12); // 200 tokens at 1000/min
      await state.settle(reservationOf(first), { tokens: 100, costMicros: 0 }); // 500 given back
      expect((await state.admit({ key: 'k', tokens: 600, limits })).allowed).toBe(true);
    });

    it('a call larger than the whole token bucket goes when the bucket is full, then the key waits', async () => {
      const { store: state } = await store();
      const limits = { tokensPerMinute: 100 };
      expect((await state.admit({ key: 'k', tokens: 5000, limits })).allowed).toBe(true);
      expect((await state.admit({ key: 'k', tokens: 1, limits })).allowed).toBe(false);
    });

    it('a daily budget refuses (budget_exceeded) once the spend reaches it; usage shows spend and remaining', async () => {
      const { store: state } = await store();
      const budget = { usdPerDay: 0.01 };
      for (let count = 0; count < 2; count++) {
        const admission = await state.admit({ key: 'k', tokens: 1, budget });
        expect(admission.allowed).toBe(true);
        await state.settle(reservationOf(admission), { tokens: 1, costMicros: 6_000 });
      }
      expect(await state.admit({ key: 'k', tokens: 1, budget })).toEqual({
        allowed: false,
        reason: 'budget_exceeded',
        period: 'day',
        spentMicros: 12_000,
        limitMicros: 10_000,
      });
      expect(await state.usage('k', budget)).toEqual({
        key: 'k',
        day: {
          period: '20261126',
          spentMicros: 12_000,
          reservedMicros: 0,
          limitMicros: 10_000,
          remainingMicros: 0,
        },
        month: { period: '202611', spentMicros: 12_000, reservedMicros: 0 },
      });
    });

    it('calls in flight reserve their estimated cost: the budget is not overshot by concurrent calls', async () => {
      const { store: state } = await store();
      const budget = { usdPerDay: 0.01 };
      const admissions = await Promise.all(
        Array.from({ length: 10 }, () => state.admit({ key: 'k', tokens: 1, budget, reserveMicros: 4_000 })),
      );
      expect(admissions.filter((admission) => admission.allowed)).toHaveLength(3);
      expect((await state.usage('k', budget)).day.reservedMicros).toBe(12_000);
      for (const admission of admissions.filter((each) => each.allowed))
        await state.settle(reservationOf(admission), { tokens: 1, costMicros: 1_000 });
      expect(await state.usage('k', budget)).toMatchObject({
        day: { spentMicros: 3_000, reservedMicros: 0 },
      });
      expect((await state.admit({ key: 'k', tokens: 1, budget, reserveMicros: 4_000 })).allowed).toBe(true);
    });

    it('budgets count per UTC day and month: a new day admits again, the month keeps counting', async () => {
      const { store: state, advance } = await store();
      const budget = { usdPerDay: 0.01, usdPerMonth: 0.015 };
      const first = await state.admit({ key: 'k', tokens: 1, budget });
      await state.settle(reservationOf(first), { tokens: 1, costMicros: 10_000 });
      expect(await state.admit({ key: 'k', tokens: 1, budget })).toMatchObject({ period: 'day' });
      advance(14 * 3_600_000); // 2026-11-27T00:00Z
      const second = await state.admit({ key: 'k', tokens: 1, budget });
      expect(second.allowed).toBe(true);
      await state.settle(reservationOf(second), { tokens: 1, costMicros: 5_000 });
      expect(await state.admit({ key: 'k', tokens: 1, budget })).toMatchObject({
        reason: 'budget_exceeded',
        period: 'month',
        spentMicros: 15_000,
      });
    });

    it('a refusal by the rate limit reserves nothing from the budget, and the reverse', async () => {
      const { store: state } = await store();
      const request = {
        key: 'k',
        tokens: 1,
        limits: { requestsPerMinute: 1 },
        budget: { usdPerDay: 1 },
        reserveMicros: 1,
      };
      expect((await state.admit(request)).allowed).toBe(true);
      expect(await state.admit(request)).toMatchObject({ reason: 'rate_limit' });
      expect((await state.usage('k')).day.reservedMicros).toBe(1);
    });

    it('key names cannot collide through the key layout ({, }, :, spaces)', async () => {
      const { store: state } = await store();
      const limits = { requestsPerMinute: 1 };
      for (const key of ['a:b', 'a}b', 'a{b', 'a b', 'a%3ab'])
        expect((await state.admit({ key, tokens: 1, limits })).allowed).toBe(true);
    });

    it('stores and reads back values (stored Responses)', async () => {
      const { store: state } = await store();
      await state.set('resp_1', '{"output":[]}', 60);
      expect(await state.get('resp_1')).toBe('{"output":[]}');
      expect(await state.get('resp_missing')).toBeUndefined();
    });

    it("stored values: a key past its bound gives up its own oldest first, never another key's; one over the bound alone is refused", async () => {
      // The group of `a:1` is `a` (a gateway key's stored values); each key holds at most 1,000 bytes.
      const { store: state, advance } = await store({
        valueGroupOf: (name) => name.split(':')[0]!,
        maxValueBytesPerGroup: 1000,
      });
      await state.set('b:1', 'b'.repeat(900), 60);
      for (let turn = 1; turn <= 5; turn++) {
        advance(1); // one store a millisecond: which is oldest is never a tie
        await state.set(`a:${turn}`, `${turn}`.repeat(300), 60);
      }
      // a:1 went at a:4 (1,200 bytes), a:2 at a:5: a holds 900 bytes; b, at 900 of its own, kept its value.
      expect(await state.get('a:1')).toBeUndefined();
      expect(await state.get('a:2')).toBeUndefined();
      for (let turn = 3; turn <= 5; turn++) expect(await state.get(`a:${turn}`)).toBe(`${turn}`.repeat(300));
      expect(await state.get('b:1')).toBe('b'.repeat(900));
      // Storing again under a name replaces its bytes (not counted twice): nothing else goes.
      advance(1);
      await state.set('a:5', '5'.repeat(300), 60);
      expect(await state.get('a:3')).toBe('3'.repeat(300));
      // UTF-8 bytes, as Redis counts them: 350 two-byte characters are 700 bytes — a:3 and a:4 go.
      advance(1);
      await state.set('a:6', 'é'.repeat(350), 60);
      expect(await state.get('a:3')).toBeUndefined();
      expect(await state.get('a:4')).toBeUndefined();
      expect(await state.get('a:5')).toBe('5'.repeat(300));
      // Over the bound on its own: refused, and nothing of a's is given up for it.
      await expect(state.set('a:7', 'x'.repeat(1001), 60)).rejects.toThrow(RangeError);
      expect(await state.get('a:7')).toBeUndefined();
      expect(await state.get('a:6')).toBe('é'.repeat(350));
      expect(await state.get('b:1')).toBe('b'.repeat(900));
    });

    it('stored values: one that expired by its TTL stops counting — a key never gives up a live value for it', async () => {
      const { store: state, advance } = await store({
        valueGroupOf: (name) => name.split(':')[0]!,
        maxValueBytesPerGroup: 1000,
      });
      await state.set('a:long', 'l'.repeat(500), 60);
      advance(1);
      await state.set('a:short', 's'.repeat(500), 1);
      advance(2000); // a:short expired
      await state.set('a:new', 'n'.repeat(500), 60);
      // 500 + 500 live bytes: within the bound, nothing live went for the expired 500.
      expect(await state.get('a:long')).toBe('l'.repeat(500));
      expect(await state.get('a:new')).toBe('n'.repeat(500));
    });
  });
}
