/**
 * The Redis store on Redis Cluster: a cluster-mode redis-server (one node owning all 16 384 slots)
 * refuses a script whose declared keys hash to more than one slot (CROSSSLOT), so the shared suites
 * passing here show every script call keeps to one slot (`scripts.test.ts` checks that no script
 * touches a key it did not declare — a one-node cluster would not notice). The store connects
 * through ioredis's Cluster client, as `redis+cluster://` does.
 */
import { afterAll, beforeAll } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { availabilitySuite } from '../../test/support/availability-suite.ts';
import { startRedis, type TestRedis } from '../../test/support/redis-server.ts';
import { stateSuite } from '../../test/support/state-suite.ts';
import { createRedisStateStore, type RedisStateStore } from './redis.ts';
import type { ValueGroupOptions } from './types.ts';

let redis: TestRedis;
const stores: RedisStateStore[] = [];
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedis({ cluster: true });
});
afterAll(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await redis.close();
});

async function storeOn(now?: () => number, groups?: ValueGroupOptions): Promise<RedisStateStore> {
  const store = createRedisStateStore({
    url: redis.url,
    cluster: true,
    prefix: `c${++prefixes}`,
    timeoutMs: 500,
    logger: createMemoryLogger(),
    now,
    ...groups,
  });
  stores.push(store);
  await store.ready;
  return store;
}

stateSuite('Redis Cluster', (now, groups) => storeOn(now, groups));
availabilitySuite('Redis Cluster', async () => (await storeOn()).availability);
