/**
 * A stored conversation read in for a request (`previous_response_id`, `item_reference`) is held
 * against `max_request_bytes_in_flight` as a body of its size would be: a request of 100 bytes
 * naming a 150 KB conversation holds it for its whole upstream call, so two at once past a 200 KB
 * bound — the second is the bound's 503 (retry shortly), not memory the bound does not see.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness({ max_request_bytes_in_flight: 200_000 });
});
afterAll(async () => {
  await harness?.close();
});

const turn = (body: object) => harness.post('/v1/responses', { model: 'up-responses', ...body });

it('two tiny requests naming a 150 KB stored conversation at once: the second is a 503; once the first ends, one passes', async () => {
  harness.emulator.enqueue(scriptedText('Stored.'));
  const stored = await turn({ input: 'x'.repeat(150_000), store: true });
  expect(stored.status).toBe(200);
  const { id } = (await stored.json()) as { id: string };

  // The first is held upstream (its headers come after 1.5 s), holding the conversation.
  harness.emulator.enqueue({ ...scriptedText('First.'), fault: { delayHeadersMs: 1500 } });
  const requests = harness.emulator.requests.length;
  const first = turn({ previous_response_id: id, input: 'and?', store: false });
  await expect.poll(() => harness.emulator.requests.length).toBe(requests + 1);
  const refused = await turn({ previous_response_id: id, input: 'and?', store: false });
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(await refused.text()).toMatch(/large request bodies/);
  expect(harness.emulator.requests.length).toBe(requests + 1);
  expect((await first).status).toBe(200);

  // Given back: the same request now passes.
  harness.emulator.enqueue(scriptedText('Now.'));
  expect((await turn({ previous_response_id: id, input: 'and?', store: false })).status).toBe(200);
});
