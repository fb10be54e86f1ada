/**
 * The bytes-in-flight bound over a shared store (Redis): a request naming a stored conversation the
 * bound has no room for is refused by the conversation's size, asked of Redis first — not after
 * pulling the whole value in (concurrent requests naming one 16 MB conversation would each hold
 * 16 MB before the bound could refuse them). Redis's own count of bytes sent is the proof. The
 * entry read holds its stored size (~300 KB: the transcript and the input items, each 150 KB) until
 * it is read, then the transcript's: under a 400 KB bound one passes alone, not beside another.
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
  harness = await startGatewayHarness({
    max_request_bytes_in_flight: 400_000,
    state: redis.url,
    state_timeout_ms: 5000,
  });
});
afterAll(async () => {
  await harness?.close();
  admin?.disconnect();
  await redis?.close();
});

const turn = (body: object) => harness.post('/v1/responses', { model: 'up-responses', ...body });

/** Bytes Redis has sent its clients so far. */
async function sentByRedis(): Promise<number> {
  const info = await admin.info('stats');
  return Number(/total_net_output_bytes:(\d+)/.exec(info)![1]);
}

it('a request naming a 150 KB conversation in Redis the bound has no room for: a 503 without fetching it', async () => {
  harness.emulator.enqueue(scriptedText('Stored.'));
  const stored = await turn({ input: 'x'.repeat(150_000), store: true });
  expect(stored.status).toBe(200);
  const { id } = (await stored.json()) as { id: string };

  // The first is held upstream (its headers come after 1.5 s), holding the conversation.
  harness.emulator.enqueue({ ...scriptedText('First.'), fault: { delayHeadersMs: 1500 } });
  const requests = harness.emulator.requests.length;
  const first = turn({ previous_response_id: id, input: 'and?', store: false });
  await expect.poll(() => harness.emulator.requests.length).toBe(requests + 1);
  const before = await sentByRedis();
  const refused = await turn({ previous_response_id: id, input: 'and?', store: false });
  const sent = (await sentByRedis()) - before;
  expect(refused.status).toBe(503);
  expect(await refused.text()).toMatch(/large request bodies/);
  // Its size (and an INFO reply), never its 150 KB.
  expect(sent).toBeLessThan(20_000);
  // The first holds the transcript it keeps (~150 KB), not the entry it read (~300 KB): a 200 KB body fits beside it.
  harness.emulator.enqueue(scriptedText('Beside.'));
  expect((await turn({ input: 'y'.repeat(200_000), store: false })).status).toBe(200);
  expect((await first).status).toBe(200);

  // Given back: the same request now passes, the conversation fetched whole.
  harness.emulator.enqueue(scriptedText('Now.'));
  expect((await turn({ previous_response_id: id, input: 'and?', store: false })).status).toBe(200);
  expect(JSON.stringify(harness.emulator.requests.at(-1)!.body)).toContain('x'.repeat(150_000));
});
