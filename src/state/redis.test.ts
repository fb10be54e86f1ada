/**
 * The Redis state store against a real redis-server (started on a free loopback port, stopped by
 * PID): the same rules as the memory store, shared between stores (instances), and what happens
 * when Redis dies, hangs and comes back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { Availability } from '../routing/availability.ts';
import { availabilitySuite } from '../../test/support/availability-suite.ts';
import { startRedis, type TestRedis } from '../../test/support/redis-server.ts';
import { stateSuite } from '../../test/support/state-suite.ts';
import { StateUnavailableError } from './outage.ts';
import { createRedisStateStore, type RedisStateStore, type RedisStateStoreOptions } from './redis.ts';
import type { StateFailureEvent } from './types.ts';

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

stateSuite('Redis', (now) => storeOn({ now }));
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

  it('the circuit breaker degrades to this instance’s state while Redis is down, whatever the policy', async () => {
    const store = await storeOn({ onFailure: 'closed' });
    const availability = new Availability({ store: store.availability, policy: { failureThreshold: 1 } });
    await redis.stop();
    expect(await availability.failure('model:y')).toBe('open');
    expect(await availability.check('model:y')).toMatchObject({ allowed: false, state: 'open' });
  });
});
