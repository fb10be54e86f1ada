/**
 * A key's stored Responses are bounded (`state_max_bytes_per_key`), by one rule in memory and in a
 * shared Redis: a key that stores past its bound loses its own oldest replies (their ids are then a
 * 404 on every path), and another key's stored replies stay. Through the gateway's HTTP API, with
 * `state: memory` and against a real redis-server.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;
const keyA = { authorization: 'Bearer key-a' };
const keyB = { authorization: 'Bearer key-b' };
/** Each key's stored replies hold at most this many bytes (the least the body limit allows). */
const bound = 16 * 1024;
const gateway = {
  body_limit_bytes: bound,
  state_max_bytes_per_key: bound,
  keys: [
    { name: 'a', key: digest('key-a') },
    { name: 'b', key: digest('key-b') },
  ],
};

for (const state of ['memory', 'redis'] as const)
  describe(`stored Responses bounded per key (state: ${state})`, () => {
    let redis: TestRedis | undefined;
    let harness: GatewayHarness;

    beforeAll(async () => {
      if (state === 'redis') redis = await startRedis();
      harness = await startGatewayHarness(
        redis === undefined ? gateway : { ...gateway, state: redis.url, state_timeout_ms: 2000 },
      );
    });
    afterAll(async () => {
      await harness?.close();
      await redis?.close();
    });

    /** Stores one reply (its entry a few KB) under a key; its id. */
    async function stored(headers: Record<string, string>): Promise<string> {
      harness.emulator.enqueue(scriptedText('Stored. '.repeat(100)));
      const input = 'hi '.repeat(100);
      const reply = await harness.post('/v1/responses', { model: 'up-responses', input }, headers);
      expect(reply.status).toBe(200);
      const body = (await reply.json()) as { id: string; store: boolean };
      expect(body.store).toBe(true); // `store` defaults to true, as OpenAI's
      return body.id;
    }
    const read = (id: string, headers: Record<string, string>, path = '') =>
      fetch(`${harness.server.url}/v1/responses/${id}${path}`, { headers });
    const continuing = (id: string) =>
      harness.post('/v1/responses', { model: 'up-responses', input: 'and?', previous_response_id: id }, keyA);

    it("a key storing past its bound loses its own oldest replies (404), the newest stay, another key's replies stay", async () => {
      const others = [await stored(keyB), await stored(keyB)];
      const ids: string[] = [];
      // A few KB each (the transcript, the input items and the reply): 24 are several times 16 KiB.
      for (let turn = 0; turn < 24; turn++) ids.push(await stored(keyA));
      const statuses = await Promise.all(ids.map(async (id) => (await read(id, keyA)).status));
      expect(statuses[0]).toBe(404);
      expect((await read(ids[0]!, keyA, '/input_items')).status).toBe(404);
      expect(statuses.at(-1)).toBe(200);
      // Oldest first: every reply given up is older than every reply kept.
      const kept = statuses.indexOf(200);
      expect(kept).toBeGreaterThan(0);
      expect(statuses.slice(kept).every((status) => status === 200)).toBe(true);
      // A continuation of the newest still resolves; of the oldest, it is not found.
      harness.emulator.enqueue(scriptedText('Continued.'));
      expect((await continuing(ids.at(-1)!)).status).toBe(200);
      expect((await continuing(ids[0]!)).status).toBe(404);
      // Key b stored before a filled its share, and lost nothing to it.
      for (const id of others) expect((await read(id, keyB)).status).toBe(200);
    });
  });

it('a bound below body_limit_bytes is a config error naming both (a conversation the limit lets in could never be stored)', async () => {
  await expect(
    startGatewayHarness({ body_limit_bytes: 2048, state_max_bytes_per_key: 1024 }),
  ).rejects.toThrow(/state_max_bytes_per_key \(1024\) is below body_limit_bytes \(2048\)/);
});
