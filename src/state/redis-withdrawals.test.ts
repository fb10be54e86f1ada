/**
 * Admissions the gateway gave up on (Redis stalled past `state_timeout_ms`) against a real
 * redis-server: Redis still runs them when it resumes, and the store withdraws them, so they hold
 * no budget and no request of the key's limits (`withdrawals.ts`).
 */
import { Redis } from 'ioredis';
import { MaxRetriesPerRequestError } from 'ioredis/built/errors/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { startRedis, type TestRedis } from '../../test/support/redis-server.ts';
import { StateUnavailableError } from './outage.ts';
import { createRedisStateStore, type RedisStateStore, stateKeys, withdrawnKey } from './redis.ts';
import { admitScript, withdrawScript } from './scripts.ts';
import { type AdmitRequest, periodsOf, type StateFailurePolicy } from './types.ts';
import { mayHaveRun } from './withdrawals.ts';

let redis: TestRedis;
let raw: Redis;
const stores: RedisStateStore[] = [];

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
});
afterAll(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  raw.disconnect();
  await redis.close();
});

async function storeOn(prefix: string, onFailure: StateFailurePolicy): Promise<RedisStateStore> {
  const store = createRedisStateStore({
    url: redis.url,
    prefix,
    timeoutMs: 50,
    onFailure,
    recoveryMs: 0,
    logger: createMemoryLogger(),
  });
  stores.push(store);
  await store.ready;
  return store;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A call reserving $0.20 of a $1/day budget, 10 requests and 1,000 tokens a minute. */
const request: AdmitRequest = {
  key: 'k',
  tokens: 100,
  budget: { usdPerDay: 1 },
  limits: { requestsPerMinute: 10, tokensPerMinute: 1_000 },
  reserveMicros: 200_000,
};

describe('admissions given up on during a Redis stall', () => {
  for (const policy of ['open', 'closed'] as const) {
    it(`policy ${policy}: 5 admissions timed out during CLIENT PAUSE hold no budget, request or token once Redis resumes`, async () => {
      const prefix = `withdraw-${policy}`;
      const store = await storeOn(prefix, policy);
      const [bucket, , , inflight, requests] = stateKeys(prefix, 'k', '', '');
      await raw.client('PAUSE', 400, 'WRITE');
      const during = await Promise.all(
        Array.from({ length: 5 }, () => store.admit(request).catch((error: unknown) => error)),
      );
      if (policy === 'closed')
        for (const refusal of during) expect(StateUnavailableError.isInstance(refusal)).toBe(true);
      else for (const admission of during) expect(admission).toMatchObject({ reservation: { local: true } });
      await sleep(450); // Redis resumes and runs the 5 admit scripts it had received
      // The next admission withdraws them first: a $1 budget has room for it (5 × $0.20 held it all).
      expect(await store.admit(request)).toMatchObject({ allowed: true });
      expect(store.withdrawals).toEqual({ waiting: 0, sent: 5 });
      expect(await raw.zcard(inflight!)).toBe(1);
      expect(await raw.zcard(requests!)).toBe(1);
      expect(Number(await raw.hget(bucket!, 't'))).toBeGreaterThanOrEqual(900 - 1);
    });
  }

  it('a withdrawal that reaches Redis before its admission: the admission records nothing', async () => {
    const client = new Redis(redis.url);
    try {
      client.defineCommand('admit', { numberOfKeys: 6, lua: admitScript });
      client.defineCommand('withdraw', { numberOfKeys: 4, lua: withdrawScript });
      const scripted = client as Redis & {
        admit(...args: Array<string | number>): Promise<unknown>;
        withdraw(...args: Array<string | number>): Promise<number>;
      };
      const { day, month } = periodsOf(Date.now());
      const keys = stateKeys('early', 'k', day, month);
      const withdrawn = withdrawnKey('early', 'k');
      const [bucket, , , inflight, requests] = keys;
      const ttl = 900_000;
      expect(
        await scripted.withdraw(
          bucket!,
          inflight!,
          requests!,
          withdrawn,
          '',
          'late-1',
          'late-1:200000',
          100,
          1_000,
          ttl,
        ),
      ).toBe(0);
      const admit = (id: string) =>
        scripted.admit(...keys, withdrawn, '', 10, 1_000, 100, 1_000_000, -1, 200_000, id, ttl, day, month);
      expect(await admit('late-1')).toEqual(['withdrawn']);
      expect(await raw.zcard(inflight!)).toBe(0);
      expect(await raw.zcard(requests!)).toBe(0);
      expect(await raw.exists(bucket!)).toBe(0);
      // Another admission is not affected by the mark.
      expect(((await admit('other-1')) as string[])[0]).toBe('ok');
      expect(await raw.zcard(inflight!)).toBe(1);
      expect(await raw.pttl(withdrawn)).toBeGreaterThan(ttl - 10_000);
    } finally {
      client.disconnect();
    }
  });

  it('withdrawn: an admit sent and unanswered (timed out, its connection closed under it); not: one never sent', () => {
    expect(mayHaveRun(new Error('Command timed out'))).toBe(true);
    expect(mayHaveRun(new Error('Connection is closed.'))).toBe(true);
    // What ioredis (maxRetriesPerRequest: 0) rejects a sent command with when its connection drops.
    expect(mayHaveRun(new MaxRetriesPerRequestError(0))).toBe(true);
    expect(mayHaveRun(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(
      false,
    );
  });
});
