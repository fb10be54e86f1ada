/**
 * The Redis state store against a real redis-server (started on a free loopback port, stopped by
 * PID): the same rules as the memory store, shared between stores (instances), and what happens
 * when Redis dies, hangs and comes back.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { Availability } from '../routing/availability.ts';
import { availabilitySuite } from '../../test/support/availability-suite.ts';
import { type FakeRedis, respArray, startFakeRedis } from '../../test/support/fake-redis.ts';
import { startRedis, type TestRedis } from '../../test/support/redis-server.ts';
import { stateSuite } from '../../test/support/state-suite.ts';
import { StateUnavailableError } from './outage.ts';
import {
  createRedisStateStore,
  type RedisStateStore,
  type RedisStateStoreOptions,
  stateKeys,
  valueKeys,
} from './redis.ts';
import { periodsLua } from './scripts.ts';
import { periodsOf, type Reservation, type StateFailureEvent } from './types.ts';

let redis: TestRedis;
const stores: RedisStateStore[] = [];
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await redis.close();
});

/** A store on the test Redis; `prefix` shared by stores standing for instances of one gateway. */
async function storeOn(options: Partial<RedisStateStoreOptions> = {}): Promise<RedisStateStore> {
  const store = createRedisStateStore({
    url: redis.url,
    prefix: `t${++prefixes}`,
    timeoutMs: 200,
    logger: createMemoryLogger(),
    ...options,
  });
  stores.push(store);
  await store.ready;
  return store;
}

stateSuite('Redis', (now, groups) => storeOn({ now, ...groups }));
availabilitySuite('Redis', async () => (await storeOn()).availability);

async function until(condition: () => boolean | Promise<boolean>, ms = 1000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('shared between instances', () => {
  it('two instances share one rate limit: 30 admissions against 10 per minute admit 10', async () => {
    const [first, second] = [
      await storeOn({ prefix: 'shared-limit' }),
      await storeOn({ prefix: 'shared-limit' }),
    ];
    const limits = { requestsPerMinute: 10 };
    const all = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        (index % 2 === 0 ? first : second)!.admit({ key: 'k', tokens: 1, limits }),
      ),
    );
    expect(all.filter((admission) => admission.allowed)).toHaveLength(10);
  });

  it('a circuit opened on one instance is honoured by the other within 1 s; exactly one probe across both', async () => {
    let now = 1_000_000;
    const policy = { failureThreshold: 2, cooldownMs: 30_000 };
    const [storeA, storeB] = [
      await storeOn({ prefix: 'shared-circuit', refreshMs: 60_000 }),
      await storeOn({ prefix: 'shared-circuit', refreshMs: 60_000 }),
    ];
    const a = new Availability({ store: storeA.availability, policy, now: () => now });
    const b = new Availability({ store: storeB.availability, policy, now: () => now });
    const opened: string[] = [];
    b.onOpen((key) => opened.push(key));
    await a.failure('model:x');
    await a.failure('model:x');
    await until(() => opened.includes('model:x'));
    expect(await b.check('model:x')).toMatchObject({ allowed: false, state: 'open' });
    now += 30_000;
    const admissions = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? a : b).check('model:x')),
    );
    expect(admissions.filter((admission) => admission.allowed)).toHaveLength(1);
  });

  it('a value stored by one instance is read by another (previous_response_id)', async () => {
    const [first, second] = [
      await storeOn({ prefix: 'shared-values' }),
      await storeOn({ prefix: 'shared-values' }),
    ];
    await first.set('resp_abc', '{"id":"resp_abc"}', 60);
    expect(await second.get('resp_abc')).toBe('{"id":"resp_abc"}');
  });
});

describe('one clock: Redis TIME', () => {
  const realNow = Date.now.bind(Date);
  afterEach(() => vi.restoreAllMocks());

  it('the window is timed by Redis, not the instance: a clock 61 s ahead admits nothing more', async () => {
    const [first, second] = [await storeOn({ prefix: 'clock' }), await storeOn({ prefix: 'clock' })];
    const limits = { requestsPerMinute: 3 };
    for (const store of [first, second, first])
      expect((await store!.admit({ key: 'k', tokens: 1, limits })).allowed).toBe(true);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 61_000);
    const refused = await second!.admit({ key: 'k', tokens: 1, limits });
    expect(refused).toMatchObject({ allowed: false, limit: 'requests' });
    expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThanOrEqual(59);
  });

  it('the UTC day of the spend is Redis’s: an instance whose clock says yesterday still counts today', async () => {
    const store = await storeOn({ prefix: 'clock-day' });
    const today = periodsOf(realNow());
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 86_400_000);
    const admission = await store.admit({ key: 'k', tokens: 1, budget: { usdPerDay: 1 } });
    const reservation = (admission as { reservation: Reservation }).reservation;
    expect(reservation).toMatchObject({ day: today.day, month: today.month });
    await store.settle(reservation, { tokens: 1, costMicros: 7 });
    expect(await store.usage('k')).toMatchObject({ day: { period: today.day, spentMicros: 7 } });
  });

  it('the script’s UTC day and month agree with periodsOf (leap days, month and year ends)', async () => {
    const client = new Redis(redis.port, '127.0.0.1');
    try {
      const times = [
        0,
        Date.UTC(2000, 1, 29, 12),
        Date.UTC(2024, 1, 29, 23, 59, 59, 999),
        Date.UTC(2024, 2, 1),
        Date.UTC(2026, 11, 31, 23, 59, 59, 999),
        Date.UTC(2027, 0, 1),
        Date.UTC(2100, 1, 28, 23, 59, 59, 999),
        Date.UTC(2100, 2, 1),
        realNow(),
      ];
      for (const time of times) {
        const reply = await client.eval(`${periodsLua}\nreturn {periods(tonumber(ARGV[1]))}`, 0, time);
        const [day, month] = reply as string[];
        expect({ day, month }).toEqual(periodsOf(time));
      }
    } finally {
      client.disconnect();
    }
  });
});

describe('settles during an outage', () => {
  const budget = { usdPerDay: 1 };
  const admitted = async (store: RedisStateStore) =>
    (
      (await store.admit({ key: 'k', tokens: 1, budget, reserveMicros: 4_000 })) as {
        reservation: Reservation;
      }
    ).reservation;

  it('Redis killed and restarted (with persistence): failed settles and the spend served locally reach Redis once it is back', async () => {
    const persistent = await startRedis({ persistent: true });
    try {
      const store = await storeOn({ url: persistent.url, refreshMs: 50, recoveryMs: 0 });
      const [first, second] = [await admitted(store), await admitted(store)];
      await persistent.stop();
      await store.settle(first, { tokens: 1, costMicros: 3_000 }); // fails: queued
      const local = await admitted(store);
      expect(local.local).toBe(true);
      await store.settle(local, { tokens: 1, costMicros: 2_000 }); // Redis never saw it: summed
      expect(store.settles.waiting).toBe(2);
      await persistent.start();
      await until(() => store.settles.waiting === 0, 5_000);
      expect(store.settles).toMatchObject({ replayed: 2, folded: 0 });
      // Spent 3,000 + 2,000; reserved: only the call still in flight (the second).
      expect((await store.usage('k', budget)).day).toMatchObject({
        spentMicros: 5_000,
        reservedMicros: 4_000,
      });
      await store.settle(second, { tokens: 1, costMicros: 1_000 });
      expect((await store.usage('k', budget)).day).toMatchObject({ spentMicros: 6_000, reservedMicros: 0 });
    } finally {
      await persistent.close();
    }
  });

  it('a settle that reached Redis but whose reply was lost (Redis hung past the timeout) counts once, not twice', async () => {
    const store = await storeOn({ timeoutMs: 100, refreshMs: 50, recoveryMs: 0 });
    const reservation = await admitted(store);
    process.kill(redis.pid!, 'SIGSTOP');
    await store.settle(reservation, { tokens: 1, costMicros: 3_000 }); // sent, unanswered in time: queued
    expect(store.settles.waiting).toBe(1);
    process.kill(redis.pid!, 'SIGCONT'); // Redis runs the first settle now, then the replay
    await until(() => store.settles.waiting === 0, 5_000);
    expect((await store.usage('k', budget)).day).toMatchObject({ spentMicros: 3_000, reservedMicros: 0 });
  });
});

describe('Redis trouble', () => {
  afterEach(async () => {
    if (redis.pid === undefined) await redis.start();
    else process.kill(redis.pid, 'SIGCONT');
  });

  it('Redis killed: policy open serves from local state with one WARN and a metric per failure; restarted: sharing resumes', async () => {
    const logger = createMemoryLogger();
    const events: StateFailureEvent[] = [];
    const store = await storeOn({
      logger,
      onFailureEvent: (event) => events.push(event),
      onFailure: 'open',
      recoveryMs: 0,
    });
    const limits = { requestsPerMinute: 1000 };
    expect((await store.admit({ key: 'k', tokens: 1, limits })).allowed).toBe(true);
    await redis.stop();
    for (let count = 0; count < 5; count++) {
      const admission = await store.admit({ key: 'k', tokens: 1, limits });
      expect(admission).toMatchObject({ allowed: true, reservation: { local: true } });
    }
    expect(store.degraded).toBe(true);
    expect(events.length).toBeGreaterThanOrEqual(5);
    expect(events[0]).toMatchObject({ operation: 'admit', outcome: 'local' });
    expect(logger.entries.filter((entry) => /unreachable/.test(entry.message))).toHaveLength(1);
    await store.set('resp_local', 'kept here', 60);
    expect(await store.get('resp_local')).toBe('kept here');
    await redis.start();
    await until(
      async () => (await store.admit({ key: 'k', tokens: 1, limits })).allowed && !store.degraded,
      5_000,
    );
    expect(logger.entries.filter((entry) => /reachable again/.test(entry.message))).toHaveLength(1);
  });

  it('a value stored locally during an outage reaches Redis once it is back, with the time it had left', async () => {
    const [first, second] = [
      await storeOn({ prefix: 'outage-values', recoveryMs: 0 }),
      await storeOn({ prefix: 'outage-values', recoveryMs: 0 }),
    ];
    await redis.stop();
    await first.set('resp_during', 'stored in the outage', 60);
    expect(first.values.waiting).toBe(1);
    expect(await second.get('resp_during')).toBeUndefined();
    await redis.start();
    const reconnected = async (store: RedisStateStore) =>
      (await store.admit({ key: 'k', tokens: 1 })).allowed && !store.degraded;
    await until(async () => (await reconnected(first)) && first.values.waiting === 0, 5_000);
    await until(() => reconnected(second), 5_000);
    expect(first.values.shared).toBe(1);
    expect(await second.get('resp_during')).toBe('stored in the outage');
    const raw = new Redis(redis.url);
    const left = await raw.pttl(valueKeys('outage-values', '', 'resp_during')[0]);
    raw.disconnect();
    expect(left).toBeGreaterThan(50_000);
    expect(left).toBeLessThanOrEqual(60_000);
  });

  it('a value that must be shared (a deletion mark) is never kept only here: Redis down, policy open, its set is refused', async () => {
    const store = await storeOn({ prefix: 'shared-only', onFailure: 'open' });
    await store.set('resp_gone', 'the reply', 60);
    await redis.stop();
    const error = await store
      .set('resp_gone', 'deleted', 60, { shared: true })
      .catch((caught: unknown) => caught);
    expect(StateUnavailableError.isInstance(error)).toBe(true);
    expect(store.values.waiting).toBe(0);
  });

  it('Redis full (OOM, noeviction): a stored value is refused with a WARN naming maxmemory, not kept here as if shared', async () => {
    const logger = createMemoryLogger();
    const store = await storeOn({ prefix: 'full', onFailure: 'open', logger });
    const raw = new Redis(redis.url);
    try {
      await raw.config('SET', 'maxmemory-policy', 'noeviction');
      await raw.config('SET', 'maxmemory', '1');
      const error = await store.set('resp_full', 'the reply', 60).catch((caught: unknown) => caught);
      expect(StateUnavailableError.isInstance(error)).toBe(true);
      expect(store.values.waiting).toBe(0);
      expect(logger.entries.map((entry) => entry.message).join('\n')).toMatch(/out of memory \(maxmemory/);
      expect(logger.entries.filter((entry) => /unreachable/.test(entry.message))).toHaveLength(0);
    } finally {
      await raw.config('SET', 'maxmemory', '0');
      raw.disconnect();
    }
  });

  it('Redis killed: policy closed refuses with StateUnavailableError (the gateway answers 503), at once', async () => {
    const store = await storeOn({ onFailure: 'closed' });
    await redis.stop();
    const error = await store.admit({ key: 'k', tokens: 1 }).catch((caught: unknown) => caught);
    expect(StateUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'state_unavailable' });
    await expect(store.get('resp_x')).rejects.toThrow(StateUnavailableError);
  });

  it('Redis hung (SIGSTOP): a command fails after state_timeout_ms, not later, and the request is served locally', async () => {
    const store = await storeOn({ timeoutMs: 100, onFailure: 'open' });
    process.kill(redis.pid!, 'SIGSTOP');
    const admission = await store.admit({ key: 'k', tokens: 1 });
    expect(admission).toMatchObject({ allowed: true, reservation: { local: true } });
  });

  it('a busy process is not a slow Redis: a reply that arrived while the event loop was blocked past the timeout is used', async () => {
    const store = await storeOn({ timeoutMs: 50, onFailure: 'closed' });
    const limits = { requestsPerMinute: 10 };
    expect((await store.admit({ key: 'k', tokens: 1, limits })).allowed).toBe(true); // the script is loaded
    const pending = store.admit({ key: 'k', tokens: 1, limits });
    const blockedUntil = Date.now() + 400;
    while (Date.now() < blockedUntil); // busy past the timeout; Redis answers meanwhile
    expect((await pending).allowed).toBe(true);
    expect(store.degraded).toBe(false);
  });

  it('the circuit breaker degrades to this instance’s state while Redis is down, whatever the policy', async () => {
    const store = await storeOn({ onFailure: 'closed' });
    const availability = new Availability({ store: store.availability, policy: { failureThreshold: 1 } });
    await redis.stop();
    expect(await availability.failure('model:y')).toBe('open');
    expect(await availability.check('model:y')).toMatchObject({ allowed: false, state: 'open' });
  });
});

describe('another writer’s value under the gateway’s keys (Redis up, refusing the script)', () => {
  it('a corrupt spend counter refuses the key’s calls (503) with one WARN, never a per-instance budget, whatever the policy', async () => {
    const logger = createMemoryLogger();
    const store = await storeOn({ prefix: 'poisoned', logger });
    const raw = new Redis(redis.url);
    const { day, month } = periodsOf(Date.now());
    await raw.set(stateKeys('poisoned', 'k', day, month)[1]!, 'corrupt');
    for (let call = 0; call < 3; call++)
      await expect(store.admit({ key: 'k', tokens: 1, budget: { usdPerDay: 1 } })).rejects.toBeInstanceOf(
        StateUnavailableError,
      );
    expect(store.degraded).toBe(false);
    const warnings = logger.entries.filter((entry) => entry.message.includes('Redis refused'));
    expect(warnings).toHaveLength(1);
    // Another key on the same Redis is served as before.
    expect((await store.admit({ key: 'other', tokens: 1, budget: { usdPerDay: 1 } })).allowed).toBe(true);
    raw.disconnect();
  });

  it('a stored value of another Redis type reads as absent, not as an outage', async () => {
    const store = await storeOn({ prefix: 'wrongtype' });
    const raw = new Redis(redis.url);
    await raw.hset(valueKeys('wrongtype', '', 'resp_x')[0], 'a', '1');
    expect(await store.get('resp_x')).toBeUndefined();
    expect(store.degraded).toBe(false);
    raw.disconnect();
  });
});

describe('replies a real Redis cannot send', () => {
  let fake: FakeRedis;
  beforeAll(async () => {
    fake = await startFakeRedis();
  });
  afterAll(async () => {
    await fake.close();
  });
  const limits = { requestsPerMinute: 100 };

  /** A store on the fake Redis. */
  async function fakeStore(): Promise<RedisStateStore> {
    const store = createRedisStateStore({
      url: fake.url,
      prefix: `f${++prefixes}`,
      timeoutMs: 200,
      logger: createMemoryLogger(),
    });
    stores.push(store);
    await store.ready;
    return store;
  }
  const good = () => respArray('ok', String(Date.now()));

  it.each([
    ['a period reply without a clock', () => respArray('period', 'abc')],
    ['a refusal without a number', () => respArray('rate', 'requests', 'x')],
    ['a refusal of an unknown kind', () => respArray('nope', 'requests', '5')],
    ['an integer', () => ':1\r\n'],
  ])(
    '%s fails that admission under the policy (local answer), and the next good reply is used again',
    async (_, reply) => {
      const store = await fakeStore();
      fake.admitReply = reply;
      const local = await store.admit({ key: 'k', tokens: 1, limits });
      expect(local).toMatchObject({ allowed: true, reservation: { local: true } });
      fake.admitReply = good;
      const shared = await store.admit({ key: 'k', tokens: 1, limits });
      expect(shared.allowed).toBe(true);
      expect(shared.allowed && shared.reservation.local).not.toBe(true);
    },
  );

  it.each([
    ['an unreadable clock', () => respArray('ok', 'abc')],
    ['a clock in another century', () => respArray('ok', String(Date.UTC(2300, 0, 1)))],
  ])(
    'an admission Redis recorded with %s stands (shared, timed by this instance), and the clock is never kept',
    async (_, reply) => {
      const store = await fakeStore();
      fake.admitReply = reply;
      const admitted = await store.admit({ key: 'k', tokens: 1, limits });
      expect(admitted.allowed && admitted.reservation.local).not.toBe(true);
      expect(admitted.allowed && Math.abs(admitted.reservation.expiresAt! - Date.now())).toBeLessThan(
        24 * 3_600_000,
      );
      fake.admitReply = good;
      const next = await store.admit({ key: 'k', tokens: 1, limits });
      expect(next.allowed && next.reservation.local).not.toBe(true);
    },
  );
});

it('a large stored value (a long Responses conversation) is written and read within its own timeout, not the admission’s 50 ms', async () => {
  const store = await storeOn({ timeoutMs: 50 });
  const value = JSON.stringify({ transcript: 'x'.repeat(24_000_000) });
  await store.set('large', value, 60);
  expect((await store.get('large'))?.length).toBe(value.length);
  // Through Redis, not the local fallback: neither command timed out.
  expect(store.degraded).toBeFalsy();
});

it('a large stored value on its way does not hold up admissions: they answer before it is read', async () => {
  const store = await storeOn({ timeoutMs: 1000 });
  await store.set('large-read', 'x'.repeat(24_000_000), 60);
  await store.admit({ key: 'k', tokens: 1 }); // the script is loaded
  // On one shared connection Redis answers in order: the admission could never come first. On their
  // own connections it does unless this process is too busy to send it before the value has arrived
  // (a loaded machine): a few tries, one is enough.
  let overtaken = false;
  for (let attempt = 0; attempt < 5 && !overtaken; attempt++) {
    const order: string[] = [];
    const reading = store.get('large-read').then(() => order.push('value'));
    await new Promise((resolve) => setImmediate(resolve)); // the GET is on the wire first
    const admitting = store.admit({ key: 'k', tokens: 1 }).then(() => order.push('admission'));
    await Promise.all([reading, admitting]);
    overtaken = order[0] === 'admission';
  }
  expect(overtaken).toBe(true);
  expect(store.degraded).toBeFalsy();
});
