/**
 * A stored value's size before the value (`StateStore.get` with `hold`): the Redis store asks
 * Redis the size and fetches a large value only once `hold` took it, so a request the
 * bytes-in-flight bound refuses never pulls it in; a small one comes with its size in one round
 * trip. Against a real redis-server; Redis's own counters (bytes sent, commands run) are the proof.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { startRedis, type TestRedis } from '../../test/support/redis-server.ts';
import { createRedisStateStore, type RedisStateStore } from './redis.ts';

let redis: TestRedis;
let store: RedisStateStore;
let admin: Redis;

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  store = createRedisStateStore({
    url: redis.url,
    prefix: 'sized',
    timeoutMs: 200,
    logger: createMemoryLogger(),
  });
  await store.ready;
});
afterAll(async () => {
  await store?.close();
  admin?.disconnect();
  await redis?.close();
});

/** A counter of Redis's `INFO` (e.g. `total_net_output_bytes`). */
async function counter(section: string, name: string): Promise<number> {
  const info = await admin.info(section);
  const line = info.split('\r\n').find((entry) => entry.startsWith(`${name}:`)) ?? `${name}:0`;
  return Number(/(?:calls=)?(\d+)/.exec(line.slice(name.length + 1))![1]);
}

const refusal = new Error('over the bound');

it('a large stored value the hold refuses is never fetched: Redis sends its size, not its 1 MB', async () => {
  await store.set('large', 'x'.repeat(1024 * 1024), 60);
  await store.get('small-warm-up', () => {}); // the script loaded (EVALSHA), off the measure
  const told: number[] = [];
  const before = await counter('stats', 'total_net_output_bytes');
  await expect(
    store.get('large', (bytes) => {
      told.push(bytes);
      throw refusal;
    }),
  ).rejects.toBe(refusal);
  const sent = (await counter('stats', 'total_net_output_bytes')) - before;
  expect(told).toEqual([1024 * 1024]);
  expect(sent).toBeLessThan(16 * 1024);
  expect(store.degraded).toBe(false); // a refusal is no failure of the store
});

it('a large stored value the hold takes is held by its size, then fetched whole', async () => {
  const told: number[] = [];
  const value = await store.get('large', (bytes) => void told.push(bytes));
  expect(value).toHaveLength(1024 * 1024);
  expect(told).toEqual([1024 * 1024]);
});

it('a small stored value comes with its size in one round trip (no GET of its own)', async () => {
  await store.set('small', 'y'.repeat(2048), 60);
  await store.get('small', () => {});
  const scripts = await counter('commandstats', 'cmdstat_evalsha');
  const gets = await counter('commandstats', 'cmdstat_get');
  const told: number[] = [];
  expect(await store.get('small', (bytes) => void told.push(bytes))).toBe('y'.repeat(2048));
  expect(told).toEqual([2048]);
  expect((await counter('commandstats', 'cmdstat_evalsha')) - scripts).toBe(1);
  // The GET the script ran (Redis counts a script's commands too): one, and no round trip of its own.
  expect((await counter('commandstats', 'cmdstat_get')) - gets).toBe(1);
});

it('no stored value: undefined, nothing held', async () => {
  const told: number[] = [];
  expect(await store.get('missing', (bytes) => void told.push(bytes))).toBeUndefined();
  expect(told).toEqual([]);
});
