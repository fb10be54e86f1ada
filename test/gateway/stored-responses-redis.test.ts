/**
 * Stored Responses over a real redis-server when it cannot take a write: a DELETE whose deletion
 * mark cannot be written, or whose reply cannot be looked up there, is a 503, never a `deleted: true` that a later read undoes; a
 * reply that cannot be looked up is a 503 for every read, never a 404; a reply Redis
 * refuses for lack of memory (`OOM`, `maxmemory-policy noeviction`) says `store: false`, never a
 * `store: true` kept on one instance only.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let redis: TestRedis;
let admin: Redis;
let harness: GatewayHarness;

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  harness = await startGatewayHarness({ state: redis.url, state_timeout_ms: 50 });
});
afterAll(async () => {
  await harness?.close();
  admin?.disconnect();
  await redis?.close();
});

const stored = async (): Promise<string> => {
  harness.emulator.enqueue(scriptedText('Stored.'));
  const reply = await harness.post('/v1/responses', { model: 'up-responses', input: 'hi', store: true });
  expect(reply.status).toBe(200);
  return ((await reply.json()) as { id: string }).id;
};
const response = (id: string, method: 'GET' | 'DELETE') =>
  fetch(`${harness.server.url}/v1/responses/${id}`, { method });

it('a DELETE whose deletion mark Redis does not take in time (writes paused) is a 503, not deleted: true', async () => {
  const id = await stored();
  // Reads answer, writes wait 2.5 s: past the 2 s a stored value's write is given.
  await admin.client('PAUSE', 2500, 'WRITE');
  const deleting = await response(id, 'DELETE');
  expect(deleting.status).toBe(503);
  expect(await deleting.text()).toMatch(/state_unavailable/);
  // Once Redis takes writes again, the reply is deleted (the mark written then, or by the retry).
  await new Promise((resolve) => setTimeout(resolve, 600));
  const retried = await response(id, 'DELETE');
  expect([200, 404]).toContain(retried.status);
  expect((await response(id, 'GET')).status).toBe(404);
}, 10_000);

it('a DELETE that cannot read Redis (reads and writes paused) is a 503, not a 404 for a reply every instance still serves', async () => {
  const id = await stored();
  // Reads wait too, 2.5 s: past the 2 s a stored value's read is given.
  await admin.client('PAUSE', 2500, 'ALL');
  const resumed = Date.now() + 2700;
  const deleting = await response(id, 'DELETE');
  expect(deleting.status).toBe(503);
  expect(await deleting.text()).toMatch(/state_unavailable/);
  await new Promise((resolve) => setTimeout(resolve, resumed - Date.now()));
  // Nothing was deleted: the reply and its input items read as before.
  expect((await response(id, 'GET')).status).toBe(200);
  expect((await fetch(`${harness.server.url}/v1/responses/${id}/input_items`)).status).toBe(200);
}, 10_000);

it('a stored reply Redis cannot be asked for in time (reads paused) is a 503, not a 404: GET, input_items and previous_response_id', async () => {
  const id = await stored();
  // Reads wait 2.5 s: past the 2 s a stored value's read is given.
  await admin.client('PAUSE', 2500, 'ALL');
  const resumed = Date.now() + 2700;
  const [read, items, next] = await Promise.all([
    response(id, 'GET'),
    fetch(`${harness.server.url}/v1/responses/${id}/input_items`),
    harness.post('/v1/responses', { model: 'up-responses', input: 'again', previous_response_id: id }),
  ]);
  for (const reply of [read, items, next]) {
    expect(reply.status).toBe(503);
    expect(await reply.text()).toMatch(/state_unavailable/);
  }
  // The failure metric says what the client got: refused (a 503), not served from local state.
  const metrics = await (await fetch(`${harness.server.url}/metrics`)).text();
  expect(metrics).toMatch(/switchyard_state_failures_total\{operation="get",outcome="refused"\} [1-9]/);
  expect(metrics).not.toMatch(/switchyard_state_failures_total\{operation="get",outcome="local"\}/);
  await new Promise((resolve) => setTimeout(resolve, resumed - Date.now()));
  expect((await response(id, 'GET')).status).toBe(200);
}, 10_000);

it('a reply Redis refuses for lack of memory (OOM) says store: false, with a WARN naming maxmemory', async () => {
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
  await admin.config('SET', 'maxmemory', '1');
  try {
    harness.emulator.enqueue(scriptedText('Not stored.'));
    const reply = await harness.post('/v1/responses', { model: 'up-responses', input: 'hi', store: true });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { id: string; store: boolean };
    expect(body.store).toBe(false);
    const messages = harness.logger.entries.map((entry) => entry.message).join('\n');
    expect(messages).toMatch(/out of memory \(maxmemory/);
    // One WARN for the whole episode, not one a reply, and none claiming a refusal (the policy is open).
    const before = harness.logger.entries.length;
    for (let reply = 0; reply < 5; reply++) {
      harness.emulator.enqueue(scriptedText('Not stored either.'));
      const next = await harness.post('/v1/responses', { model: 'up-responses', input: 'hi', store: true });
      expect(((await next.json()) as { store: boolean }).store).toBe(false);
    }
    expect(harness.logger.entries.slice(before)).toEqual([]);
    expect(JSON.stringify(harness.logger.entries)).not.toMatch(/on_state_failure: closed/);
    await admin.config('SET', 'maxmemory', '0');
    expect((await response(body.id, 'GET')).status).toBe(404);
  } finally {
    await admin.config('SET', 'maxmemory', '0');
  }
});
