/**
 * The Redis store against a Redis that answers, but later than the silence window (2 s) after
 * which a connection is taken for silent (`ConnectionWatch`), behind a TCP proxy
 * (`test/support/redis-proxy.ts`) that delays every reply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { startRedis, type TestRedis } from '../../test/support/redis-server.ts';
import { type RedisProxy, startRedisProxy } from '../../test/support/redis-proxy.ts';
import { createRedisStateStore, type RedisStateStore } from './redis.ts';

let redis: TestRedis;
let proxy: RedisProxy;
let store: RedisStateStore;

beforeAll(async () => {
  redis = await startRedis();
  proxy = await startRedisProxy(redis.port);
  store = createRedisStateStore({ url: proxy.url, prefix: 'slow', logger: createMemoryLogger() });
  await store.ready;
});
afterAll(async () => {
  proxy.latencyMs = 0;
  await store?.close();
  await proxy?.close();
  await redis?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a Redis answering 2.5 s late', () => {
  it('has its connections recycled once, then kept (the window doubles), not every 2 s', async () => {
    await store.set('conversation', 'stored before', 60);
    const opened = proxy.accepted;
    proxy.latencyMs = 2_500;
    const startedAt = Date.now();
    let settled = 0;
    // Traffic: five admissions a second and a stored-value read (each times out, is answered late).
    for (let tick = 0; Date.now() - startedAt < 14_000; tick += 1) {
      if (settled === 0 && Date.now() - startedAt >= 6_000) settled = proxy.accepted;
      void store.admit({ key: 'k', tokens: 1 });
      if (tick % 5 === 0) void store.get('conversation').catch(() => undefined);
      await sleep(200);
    }
    // Before: a new connection every window (+2 in each 5 s); now none after the first recycles.
    expect(settled).toBeGreaterThan(opened);
    expect(proxy.accepted - settled).toBe(0);
  }, 30_000);

  it('once it answers in time again, a connection gone silent is replaced after 2 s again, not the doubled window', async () => {
    proxy.latencyMs = 0;
    // Replies in time (the window is the first again); then the connections go silent.
    for (let tries = 0; tries < 50; tries += 1) {
      const admission = await store.admit({ key: 'k', tokens: 1 });
      if (admission.allowed && admission.reservation.local !== true) break;
      await sleep(100);
    }
    proxy.strand();
    const startedAt = Date.now();
    let shared = false;
    while (!shared && Date.now() - startedAt < 10_000) {
      await sleep(50);
      const admission = await store.admit({ key: 'k', tokens: 1 });
      shared = admission.allowed && admission.reservation.local !== true;
    }
    // The first timeout, the 2 s window, a reconnect (the doubled window: past 4 s).
    expect(Date.now() - startedAt).toBeLessThan(3_200);
  }, 30_000);
});
