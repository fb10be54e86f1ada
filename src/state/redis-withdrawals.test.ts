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
import { mayHaveRun, type Withdrawal, Withdrawals } from './withdrawals.ts';

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

async function storeOn(
  prefix: string,
  onFailure: StateFailurePolicy,
  timeoutMs = 50,
): Promise<RedisStateStore> {
  const store = createRedisStateStore({
    url: redis.url,
    prefix,
    timeoutMs,
    // No circuit refresh to end the outage before the test's next admission does.
    refreshMs: 60_000,
    onFailure,
    recoveryMs: 0,
    logger: createMemoryLogger(),
  });
  stores.push(store);
  await store.ready;
  return store;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The scripts Redis has run (EVALSHA and EVAL calls, from INFO commandstats). */
async function scriptsRun(): Promise<number> {
  const stats = await raw.info('commandstats');
  let calls = 0;
  for (const match of stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)) calls += Number(match[1]);
  return calls;
}

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

  for (const policy of ['open', 'closed'] as const) {
    it(`policy ${policy}: an admission given up on while a withdrawal is on its way holds nothing once Redis answers it late`, async () => {
      const prefix = `late-${policy}`;
      // A 200 ms state_timeout_ms: room for a loaded test machine between the steps.
      const store = await storeOn(prefix, policy, 200);
      const [, , , inflight, requests] = stateKeys(prefix, 'k', '', '');
      const start = Date.now();
      const at = (ms: number) => sleep(ms - (Date.now() - start));
      await raw.client('PAUSE', 10_000, 'WRITE');
      setTimeout(() => void raw.client('UNPAUSE'), 700);
      // Given up on at 200 ms: its withdrawal is queued.
      await store.admit(request).catch(() => undefined);
      expect(store.withdrawals.waiting).toBe(1);
      // A read answers during a WRITE pause: the outage is over, the withdrawal is sent (and stalls).
      await at(300);
      await store.get('anything');
      // The next admission, given up on at its deadline (600 ms) while Redis still stalls; Redis runs
      // it at 700 ms, inside what a second timer after the withdrawals' wait (to 800 ms) allowed.
      await at(400);
      const second = await store.admit(request).catch((error: unknown) => error);
      if (policy === 'closed') expect(StateUnavailableError.isInstance(second)).toBe(true);
      else expect(second).toMatchObject({ reservation: { local: true } });
      // Redis answers again: the next command's success sends what waits.
      await at(900);
      await store.get('anything');
      await at(1200);
      expect(store.withdrawals.waiting).toBe(0);
      // Neither admission holds a reservation or a request in Redis: both were given up on.
      expect(await raw.zcard(inflight!)).toBe(0);
      expect(await raw.zcard(requests!)).toBe(0);
    });
  }

  it('policy closed: after 10,000 admissions given up on during a stall, admissions on a healthy Redis are allowed at once', async () => {
    const store = await storeOn('backlog', 'closed');
    const request = (key: string): AdmitRequest => ({
      key,
      tokens: 1,
      limits: { requestsPerMinute: 1_000_000, tokensPerMinute: 0 },
      reserveMicros: 1,
    });
    const ran = await scriptsRun();
    // Redis resumes once every admission has been given up on (not after a fixed 300 ms: on a
    // loaded machine, starting 10,000 admissions took longer, and the late ones were answered).
    await raw.client('PAUSE', 10_000, 'WRITE');
    await Promise.all(
      Array.from({ length: 10_000 }, (_, index) =>
        store.admit(request(`k${index % 1000}`)).catch(() => undefined),
      ),
    );
    const sent = store.withdrawals.waiting;
    expect(sent).toBeGreaterThan(9_000);
    await raw.client('UNPAUSE');
    // Redis runs the admit scripts it had received (not a fixed 400 ms: under load it took longer).
    await expect.poll(scriptsRun, { timeout: 20_000 }).toBeGreaterThanOrEqual(ran + sent);
    const outcomes: string[] = [];
    for (let index = 0; index < 20; index++)
      outcomes.push(
        await store.admit(request('fresh')).then(
          (admission) => (admission.allowed ? 'allowed' : 'refused'),
          (error: Error) => error.name,
        ),
      );
    expect(outcomes).toEqual(Array.from({ length: 20 }, () => 'allowed'));
    // The backlog drains while Redis answers: a batch that timed out (a loaded machine) stops the
    // drain until the next command's success starts it again — a gateway's traffic, here a read.
    for (let waited = 0; store.withdrawals.waiting > 0 && waited < 100; waited++) {
      await sleep(100);
      await store.get('anything').catch(() => undefined);
    }
    expect(store.withdrawals.waiting).toBe(0);
  }, 60_000);

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

describe('the withdrawal queue', () => {
  const withdrawal = (key: string, id: string): Withdrawal => ({
    key,
    id,
    member: `${id}:1`,
    tokens: 1,
    tokensPerMinute: 10,
  });

  it('sends ahead only the key’s withdrawals, each once while on its way; the drain sends the rest and takes off what was answered in any order', async () => {
    const sends: string[] = [];
    const answers = new Map<string, () => void>();
    const queue = new Withdrawals(
      (item) =>
        new Promise<void>((resolve) => {
          sends.push(item.id);
          answers.set(item.id, resolve);
        }),
    );
    for (let index = 0; index < 4; index++) queue.add(withdrawal(index % 2 === 0 ? 'a' : 'b', `w${index}`));
    queue.sendAhead('a', { most: 1 });
    queue.sendAhead('a');
    queue.sendAhead('a');
    expect(sends).toEqual(['w0', 'w2']);
    const drained = queue.run();
    expect(sends).toEqual(['w0', 'w2', 'w1', 'w3']);
    for (const id of ['w3', 'w0', 'w1', 'w2']) answers.get(id)!();
    await drained;
    await sleep(0);
    expect(queue.size).toBe(0);
    expect(queue.sent).toBe(4);
  });

  it('keeps the newest up to its limit: the oldest is dropped, and a failed send stays queued for the next run', async () => {
    let fail = true;
    const queue = new Withdrawals(async () => {
      if (fail) throw new Error('Command timed out');
    }, 3);
    for (let index = 0; index < 5; index++) queue.add(withdrawal('a', `w${index}`));
    expect(queue).toMatchObject({ size: 3, dropped: 2 });
    await queue.run();
    expect(queue.size).toBe(3);
    // Once sent, a withdrawal is left to the drain by an admission while Redis fails.
    queue.add(withdrawal('a', 'w5'));
    queue.sendAhead('a', { once: true });
    await sleep(0);
    expect(queue.size).toBe(3);
    fail = false;
    queue.sendAhead('a', { once: true });
    await sleep(0);
    expect(queue.size).toBe(3);
    await queue.run();
    expect(queue).toMatchObject({ size: 0, sent: 3 });
  });
});
