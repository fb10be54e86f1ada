/**
 * A key's bound on its stored values in Redis (`state_max_bytes_per_key`), against a real
 * redis-server: instances storing for one key at once keep it together (one script decides), and
 * values that expired by their TTL leave the key's count at its next store. Redis's own keys (the
 * values, the key's index and sizes) are the proof.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { startRedis, type TestRedis } from '../../test/support/redis-server.ts';
import { createRedisStateStore, keyPart, type RedisStateStore, valueKeys } from './redis.ts';

let redis: TestRedis;
let admin: Redis;
const stores: RedisStateStore[] = [];

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
});
afterAll(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  admin?.disconnect();
  await redis?.close();
});

/** An instance of a gateway whose keys each hold at most `bound` bytes (`a:1` is key a's). */
async function instance(prefix: string, bound: number, maxGivenUpPerRun?: number): Promise<RedisStateStore> {
  const store = createRedisStateStore({
    ...(maxGivenUpPerRun === undefined ? {} : { maxGivenUpPerRun }),
    url: redis.url,
    prefix,
    timeoutMs: 2000,
    logger: createMemoryLogger(),
    valueGroupOf: (name) => name.split(':')[0]!,
    maxValueBytesPerGroup: bound,
  });
  stores.push(store);
  await store.ready;
  return store;
}

/** What Redis holds for a key: its live values' bytes, its index's names and its counted sum. */
async function held(prefix: string, key: string, names: string[]) {
  const [, index, sizes] = valueKeys(prefix, key, `${key}:`);
  const lengths = await Promise.all(names.map((name) => admin.strlen(valueKeys(prefix, key, name)[0])));
  return {
    bytes: lengths.reduce((sum, length) => sum + length, 0),
    values: lengths.filter((length) => length > 0).length,
    indexed: await admin.zcard(index),
    counted: Number((await admin.hget(sizes, '#')) ?? 0),
  };
}

it("two instances storing for one key at once keep its bound, and its index holds exactly what is stored; another key's values stay", async () => {
  const [first, second] = [await instance('both', 10_000), await instance('both', 10_000)];
  const others = Array.from({ length: 8 }, (_, index) => `b:${index}`);
  for (const name of others) await first.set(name, 'b'.repeat(1000), 60);
  // 2 × 40 stores of 500 to 1,000 bytes (45 KB) for key a, the two instances interleaved.
  const names = Array.from({ length: 80 }, (_, index) => `a:${index}`);
  await Promise.all(
    names.map((name, index) =>
      (index % 2 === 0 ? first : second).set(name, 'a'.repeat(500 + ((index * 37) % 501)), 60),
    ),
  );
  const a = await held('both', 'a', names);
  expect(a.bytes).toBeLessThanOrEqual(10_000);
  expect(a.bytes).toBeGreaterThan(9_000); // a bound, not a purge: only what was over it went
  expect(a.indexed).toBe(a.values);
  expect(a.counted).toBe(a.bytes);
  // Key b, at 8,000 bytes of its own, lost nothing to a.
  expect(await held('both', 'b', others)).toEqual({ bytes: 8000, values: 8, indexed: 8, counted: 8000 });
  for (const name of others) expect(await second.get(name)).toBe('b'.repeat(1000));
});

it('values that expired by their TTL stop counting: the next store drops them from the key’s index', async () => {
  const store = await instance('expiry', 10_000);
  await store.set('a:0', 'z'.repeat(500), 60); // keeps the key's index alive past the others
  const short = ['a:1', 'a:2', 'a:3'];
  for (const name of short) await store.set(name, 'x'.repeat(2000), 0.2);
  expect(await held('expiry', 'a', ['a:0', ...short])).toMatchObject({ indexed: 4, counted: 6500 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await store.set('a:4', 'y'.repeat(600), 60);
  expect(await held('expiry', 'a', ['a:0', ...short, 'a:4'])).toEqual({
    bytes: 1100,
    values: 2,
    indexed: 2,
    counted: 1100,
  });
});

it('a key over its bound loses its oldest value, which then reads as absent on every instance', async () => {
  const [first, second] = [await instance('oldest', 1000), await instance('oldest', 1000)];
  await first.set('a:old', 'o'.repeat(600), 60);
  await second.set('a:new', 'n'.repeat(600), 60);
  expect(await first.get('a:old')).toBeUndefined();
  expect(await second.get('a:old')).toBeUndefined();
  expect(await first.get('a:new')).toBe('n'.repeat(600));
});

/** A counter of Redis's `INFO stats` (e.g. `total_net_input_bytes`). */
async function counter(name: string): Promise<number> {
  const line = (await admin.info('stats')).split('\r\n').find((entry) => entry.startsWith(`${name}:`));
  return Number(line?.slice(name.length + 1) ?? 0);
}

it('a large value that needs room is stored in one step: sent to Redis once, its key’s oldest given up in the same call', async () => {
  const store = await instance('large', 400 * 1024);
  const value = (fill: string) => fill.repeat(150 * 1024);
  await store.set('a:1', value('1'), 60);
  await store.set('a:2', value('2'), 60);
  const before = await counter('total_net_input_bytes');
  await store.set('a:3', value('3'), 60); // 450 KiB: a:1 goes
  const sent = (await counter('total_net_input_bytes')) - before;
  expect(sent).toBeGreaterThan(150 * 1024);
  expect(sent).toBeLessThan(160 * 1024);
  expect(await store.get('a:1')).toBeUndefined();
  expect(await store.get('a:2')).toBe(value('2'));
  expect(await store.get('a:3')).toBe(value('3'));
});

it('a value its key gave up reads as absent at once, even while its Redis key is still there (deleted just after)', async () => {
  const store = await instance('unindexed', 10_000);
  await store.set('a:1', 'v'.repeat(100), 60);
  // As the store script leaves a value it gave up: out of the key's index, its key deleted next.
  const [key, index] = valueKeys('unindexed', 'a', 'a:1');
  await admin.zrem(index, keyPart('a:1'));
  expect(await admin.exists(key)).toBe(1);
  expect(await store.get('a:1')).toBeUndefined();
  expect(await store.get('a:1', () => {})).toBeUndefined();
});

it('a key of many small values gives up thousands of them for one large value in one store (more than Lua unpacks at once)', async () => {
  const store = await instance('many', 210_000);
  const names = Array.from({ length: 20_000 }, (_, index) => `a:${index}`);
  for (let from = 0; from < names.length; from += 2000)
    await Promise.all(names.slice(from, from + 2000).map((name) => store.set(name, 's'.repeat(10), 60)));
  await store.set('a:large', 'L'.repeat(200_000), 60);
  expect(await store.get('a:large')).toBe('L'.repeat(200_000));
  expect(await store.get('a:0')).toBeUndefined();
  expect(await store.get('a:19999')).toBe('s'.repeat(10));
  const [, index, sizes] = valueKeys('many', 'a', 'a:');
  expect(await admin.zcard(index)).toBe(1001); // the newest thousand small values and the large one
  expect(Number(await admin.hget(sizes, '#'))).toBe(210_000);
  expect(await admin.dbsize()).toBeLessThan(20_000); // the values given up were deleted
}, 60_000);

/** The value keys under `prefix` whose names are not in their key's index (none are ever read). */
async function unindexed(prefix: string, key: string): Promise<string[]> {
  const [, index] = valueKeys(prefix, key, `${key}:`);
  const base = `${index.slice(0, -1)}:`; // the index is `…:values`, a value `…:value:<name>`
  const keys = await admin.keys(`${base}*`);
  const names = keys.map((valueKey) => valueKey.slice(base.length));
  const scores = names.length === 0 ? [] : await admin.zmscore(index, ...names);
  return keys.filter((_, position) => scores[position] === null);
}

it('a store after Redis lost its script cache (SCRIPT FLUSH, a failover) succeeds and reads back; no value is left unindexed', async () => {
  const store = await instance('flushed', 10_000);
  await store.set('a:1', 'x'.repeat(100), 60);
  await admin.script('FLUSH');
  await store.set('a:2', 'y'.repeat(100), 60);
  expect(await store.get('a:2')).toBe('y'.repeat(100));
  await admin.script('FLUSH');
  await store.set('a:3', 'z'.repeat(100), 60);
  expect(await store.get('a:3')).toBe('z'.repeat(100));
  expect(await store.get('a:1')).toBe('x'.repeat(100));
  expect(await unindexed('flushed', 'a')).toEqual([]);
});

it('a store whose script fails inside its transaction (WRONGTYPE) leaves no value key behind', async () => {
  const store = await instance('wrongtype', 10_000);
  const [key, index] = valueKeys('wrongtype', 'a', 'a:1');
  await admin.set(index, 'another writer');
  await expect(store.set('a:1', 'x'.repeat(100), 60)).rejects.toThrow();
  expect(await admin.exists(key)).toBe(0);
});

it('a store that must give up more values than one script run may gives them up over several short runs, ends under the bound, and leaves no value unindexed', async () => {
  const store = await instance('capped', 5_000, 10);
  const names = Array.from({ length: 50 }, (_, index) => `a:${index}`);
  for (const name of names) await store.set(name, 's'.repeat(100), 60);
  await admin.config('SET', 'slowlog-log-slower-than', '0');
  await admin.slowlog('RESET');
  try {
    await store.set('a:large', 'L'.repeat(4_500), 60); // 45 of the 50 small values must go
    const runs = ((await admin.slowlog('GET', 1000)) as Array<[number, number, number, string[]]>).filter(
      ([, , , command]) => /^eval/i.test(String(command[0])),
    );
    expect(runs.length).toBeGreaterThanOrEqual(5); // at most 10 given up a run
  } finally {
    await admin.config('SET', 'slowlog-log-slower-than', '10000');
  }
  expect(await store.get('a:large')).toBe('L'.repeat(4_500));
  expect(await store.get('a:44')).toBeUndefined();
  expect(await store.get('a:49')).toBe('s'.repeat(100));
  const [, index, sizes, givenUp] = valueKeys('capped', 'a', 'a:');
  expect(Number(await admin.hget(sizes, '#'))).toBeLessThanOrEqual(5_000);
  expect(await admin.zcard(index)).toBe(6);
  expect(await admin.scard(givenUp)).toBe(0);
  expect(await unindexed('capped', 'a')).toEqual([]);
});

it("values given up whose deletes never ran (the store's reply lost) are deleted by the key's next store", async () => {
  const store = await instance('lost', 10_000);
  for (const name of ['a:1', 'a:2', 'a:3']) await store.set(name, 'v'.repeat(100), 60);
  // As a store whose reply timed out leaves its key: two values out of the index, their names kept
  // for deletion, their keys still there.
  const [, index, sizes, givenUp] = valueKeys('lost', 'a', 'a:');
  await admin.zrem(index, keyPart('a:1'), keyPart('a:2'));
  await admin.hdel(sizes, keyPart('a:1'), keyPart('a:2'));
  await admin.sadd(givenUp, keyPart('a:1'), keyPart('a:2'));
  expect(await unindexed('lost', 'a')).toHaveLength(2);
  await store.set('a:4', 'w'.repeat(100), 60);
  expect(await unindexed('lost', 'a')).toEqual([]);
  expect(await store.get('a:3')).toBe('v'.repeat(100));
  expect(await store.get('a:4')).toBe('w'.repeat(100));
});
