/**
 * The Redis store against a sick Redis, behind a TCP proxy (`test/support/redis-proxy.ts`): its
 * connections left open but silent (a partition, a host gone behind a moved address), or every
 * reply late.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { Availability } from '../routing/availability.ts';
import { startRedis, type TestRedis } from '../../test/support/redis-server.ts';
import { type RedisProxy, startRedisProxy } from '../../test/support/redis-proxy.ts';
import { createRedisStateStore, type RedisStateStore } from './redis.ts';
import { maxQueued } from './redis-connection.ts';
import type { AdmitRequest } from './types.ts';

let redis: TestRedis;
const proxies: RedisProxy[] = [];
const stores: RedisStateStore[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  await redis.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A store through a new proxy, and the proxy. */
async function storeBehindProxy(prefix: string): Promise<{ store: RedisStateStore; proxy: RedisProxy }> {
  const proxy = await startRedisProxy(redis.port);
  proxies.push(proxy);
  const store = createRedisStateStore({
    url: proxy.url,
    prefix,
    recoveryMs: 0,
    logger: createMemoryLogger(),
  });
  stores.push(store);
  await store.ready;
  return { store, proxy };
}

const request: AdmitRequest = { key: 'k', tokens: 10, limits: { requestsPerMinute: 1_000 } };

/** Admits once: true when Redis admitted it (not this instance's memory). */
async function sharedAdmission(store: RedisStateStore): Promise<boolean> {
  const admission = await store.admit(request);
  return admission.allowed && admission.reservation.local !== true;
}

describe('a Redis connection gone silent', () => {
  it('is replaced, and sharing resumes, while Redis answers new connections', async () => {
    const { store, proxy } = await storeBehindProxy('silent-a');
    expect(await sharedAdmission(store)).toBe(true);
    const before = proxy.accepted;
    proxy.strand();
    expect(await sharedAdmission(store)).toBe(false);
    // Within the stored values' timeout (2 s) after the first timeout, and a reconnect: bounded at 6 s.
    let shared = false;
    for (let tries = 0; tries < 60 && !shared; tries += 1) {
      await sleep(100);
      shared = await sharedAdmission(store);
    }
    expect(shared).toBe(true);
    expect(proxy.accepted).toBeGreaterThan(before);
    expect(store.degraded).toBe(false);
  }, 15_000);

  it('holds at most a bounded number of commands until it is replaced (each one held its arguments)', async () => {
    // Every ioredis connection that sends a command, to read its queue.
    const connections = new Set<Redis>();
    const send = Redis.prototype.sendCommand;
    Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<typeof send>) {
      connections.add(this);
      return send.apply(this, args);
    };
    try {
      const { store, proxy } = await storeBehindProxy('silent-b');
      expect(await sharedAdmission(store)).toBe(true);
      proxy.strand();
      expect(await sharedAdmission(store)).toBe(false);
      // 5,000 admissions at once, long before the connection is replaced: all served (locally).
      const admissions = await Promise.all(
        Array.from({ length: 5_000 }, () => store.admit({ key: 'k', tokens: 1 })),
      );
      expect(admissions.every((admission) => admission.allowed)).toBe(true);
      const longest = Math.max(...[...connections].map((connection) => connection.commandQueue.length));
      expect(longest).toBeGreaterThan(0);
      expect(longest).toBeLessThanOrEqual(maxQueued + 64);
    } finally {
      Redis.prototype.sendCommand = send;
    }
  }, 15_000);
});

describe('a subscriber connection gone silent, the others answering', () => {
  it('is replaced, and circuits opened elsewhere reach this instance over pub/sub again', async () => {
    const { store: other } = await storeBehindProxy('silent-sub');
    const proxy = await startRedisProxy(redis.port);
    proxies.push(proxy);
    // The circuits re-read once a minute: a circuit seen sooner came over pub/sub.
    const store = createRedisStateStore({
      url: proxy.url,
      prefix: 'silent-sub',
      refreshMs: 60_000,
      recoveryMs: 0,
      logger: createMemoryLogger(),
    });
    stores.push(store);
    await store.ready;
    const opener = new Availability({ store: other.availability, policy: { failureThreshold: 1 } });
    /** Opens a circuit on the other instance: true when this one saw it within 100 ms. */
    const heard = async (key: string) => {
      await opener.failure(key);
      for (let tick = 0; tick < 50; tick++) {
        if ((await store.availability.get(key))?.state === 'open') return true;
        await sleep(2);
      }
      return false;
    };
    expect(await heard('model:before')).toBe(true);
    const before = proxy.accepted;
    proxy.strand('subscribers');
    expect(await heard('model:stranded')).toBe(false);
    // A PING a second, its 50 ms, the silence window (2 s), a reconnect: bounded at 8 s.
    let recovered = false;
    for (let round = 0; round < 40 && !recovered; round += 1) {
      await sleep(100);
      recovered = await heard(`model:${round}`);
    }
    expect(recovered).toBe(true);
    expect(proxy.accepted).toBe(before + 1);
  }, 15_000);
});

describe('an idle instance, Redis gone silent', () => {
  it('replaces its stored values connection before a request meets it (no 2 s wait, no 503)', async () => {
    const { store, proxy } = await storeBehindProxy('idle-values');
    await store.set('conversation', 'stored before', 60);
    proxy.strand();
    // No request: a PING a second, its 2 s, the silence window (2 s), a reconnect.
    await sleep(6_000);
    const startedAt = Date.now();
    expect(await store.get('conversation', () => {}, { authoritative: true })).toBe('stored before');
    expect(Date.now() - startedAt).toBeLessThan(1_000);
  }, 15_000);

  it('under policy closed says it refuses (/readyz 503) within a circuits re-read, not at the reconnect', async () => {
    const proxy = await startRedisProxy(redis.port);
    proxies.push(proxy);
    const store = createRedisStateStore({
      url: proxy.url,
      prefix: 'idle-closed',
      onFailure: 'closed',
      logger: createMemoryLogger(),
    });
    stores.push(store);
    await store.ready;
    expect(store.refusing).toBe(false);
    proxy.blackhole();
    const startedAt = Date.now();
    while (!store.refusing && Date.now() - startedAt < 5_000) await sleep(10);
    // The re-read every 500 ms, its 50 ms: before, only the reconnect after the 2 s window told.
    expect(Date.now() - startedAt).toBeLessThan(1_500);
  }, 15_000);
});

describe('an idle instance under policy closed, Redis slower than the timeout (150 ms)', () => {
  it('says it refuses (/readyz 503) steadily, every admission being a 503, and stops once Redis answers in time', async () => {
    const proxy = await startRedisProxy(redis.port);
    proxies.push(proxy);
    const store = createRedisStateStore({
      url: proxy.url,
      prefix: 'idle-slow',
      onFailure: 'closed',
      logger: createMemoryLogger(),
    });
    stores.push(store);
    await store.ready;
    proxy.latencyMs = 150;
    await sleep(1_000);
    const samples: boolean[] = [];
    for (let sample = 0; sample < 50; sample += 1) {
      samples.push(store.refusing === true);
      await sleep(30);
    }
    // Before: true only while a re-read's reply was late (about one sample in five).
    expect(samples.filter(Boolean)).toHaveLength(50);
    await expect(store.admit(request)).rejects.toThrow(/unavailable/);
    proxy.latencyMs = 0;
    const startedAt = Date.now();
    while (store.refusing && Date.now() - startedAt < 5_000) await sleep(20);
    expect(store.refusing).toBe(false);
  }, 15_000);
});

describe('a Redis answering late', () => {
  it('still answers stored-value reads within their own timeout (2 s), though admissions time out', async () => {
    const { store: writer } = await storeBehindProxy('late');
    const { store, proxy } = await storeBehindProxy('late');
    await writer.set('conversation', 'stored before', 60);
    proxy.latencyMs = 150;
    // Past the admissions' 50 ms: an outage begins (served from local state).
    expect(await sharedAdmission(store)).toBe(false);
    expect(await store.get('conversation')).toBe('stored before');
    expect(await store.get('conversation', () => {}, { authoritative: true })).toBe('stored before');
  }, 15_000);
});

describe('an instance too busy to read a reply', () => {
  it('reads the value whose reply waited while it was busy for 3 s, and keeps its connection', async () => {
    // Straight to a Redis of its own (a proxy in this process would be blocked too, its reply not
    // yet passed on; the other rows' stores reconnect to the shared one, which counts theirs).
    const own = await startRedis();
    const store = createRedisStateStore({
      url: own.url,
      prefix: 'busy',
      recoveryMs: 0,
      logger: createMemoryLogger(),
    });
    await store.ready;
    const admin = new Redis(own.url);
    const connections = async () =>
      Number(/total_connections_received:(\d+)/.exec(await admin.info('stats'))?.[1]);
    try {
      await store.set('conversation', 'stored before', 60);
      const before = await connections();
      const reading = store.get('conversation', () => {}, { authoritative: true });
      // The command written (its reply on its way), then the event loop blocked past ioredis's old
      // 2.5 s backstop, which failed the read and had the connection taken for silent.
      for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => process.nextTick(resolve));
      const blockedAt = Date.now();
      while (Date.now() - blockedAt < 3000);
      expect(await reading).toBe('stored before');
      // Past the silence window (2 s): no connection recycled.
      await sleep(2500);
      expect(await connections()).toBe(before);
      expect(await store.get('conversation')).toBe('stored before');
    } finally {
      admin.disconnect();
      await store.close();
      await own.close();
    }
  }, 20_000);
});

describe('a Redis out of memory (maxmemory, noeviction)', () => {
  it('still reads the values stored before, small and large, with and without their size first', async () => {
    const { store } = await storeBehindProxy('full');
    const large = 'x'.repeat(100_000); // past the 64 KiB read with its size
    await store.set('small', 'hello', 60);
    await store.set('large', large, 60);
    const admin = new Redis(redis.url);
    try {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', '1');
      expect(await admin.set('probe', 'x').catch((error: Error) => error.message)).toMatch(/^OOM/);
      expect(await store.get('small')).toBe('hello');
      expect(await store.get('small', () => {})).toBe('hello');
      expect(await store.get('large')).toBe(large);
      expect(await store.get('large', () => {})).toBe(large);
      expect(store.degraded).toBe(false);
    } finally {
      await admin.config('SET', 'maxmemory', '0');
      admin.disconnect();
    }
  }, 15_000);
});

describe('a Redis that refuses the password', () => {
  it.each([
    ['none', (port: number) => `redis://127.0.0.1:${port}`, /NOAUTH/],
    ['a wrong one', (port: number) => `redis://:Wr0ngPassw0rdXYZ@127.0.0.1:${port}`, /WRONGPASS/],
  ])(
    'given %s: the outage WARN names its answer, without the password',
    async (_, url, answer) => {
      const guarded = await startRedis();
      const admin = new Redis(guarded.url);
      await admin.config('SET', 'requirepass', 'S3cretRedisPassw0rd');
      admin.disconnect();
      const logger = createMemoryLogger();
      const store = createRedisStateStore({ url: url(guarded.port), logger, timeoutMs: 20 });
      try {
        await store.ready;
        expect((await store.admit(request)).allowed).toBe(true);
        expect(logger.entries).toHaveLength(1);
        const [warning] = logger.entries;
        expect(warning!.message).toMatch(/NOAUTH\/WRONGPASS/);
        expect(warning!.fields.connection).toMatch(answer);
        expect(JSON.stringify(logger.entries)).not.toMatch(/S3cretRedisPassw0rd|Wr0ngPassw0rdXYZ/);
      } finally {
        await store.close();
        await guarded.close();
      }
    },
    15_000,
  );
});
