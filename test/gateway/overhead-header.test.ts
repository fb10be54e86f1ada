/**
 * `x-switchyard-overhead-ms` (the gateway's own time for a request) on every non-streamed reply:
 * a whole generation, an error reply, a token count, the model listings and the health routes.
 */
import { createHash } from 'node:crypto';
import { protocolError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;
const auth = { authorization: 'Bearer team-key' };

beforeAll(async () => {
  harness = await startGatewayHarness({ keys: [{ name: 'team', key: digest('team-key') }] });
});
afterAll(async () => {
  await harness?.close();
});

const overheadOf = (response: Response) => response.headers.get('x-switchyard-overhead-ms');
const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'up-chat',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

it('an error reply carries the overhead: an upstream failure, a malformed body, an unknown model', async () => {
  harness.emulator.enqueue(protocolError('openai-chat', 'server_error'));
  const failed = await harness.post('/v1/chat/completions', chat(), auth);
  expect(failed.status).toBeGreaterThanOrEqual(500);
  const malformed = await harness.post('/v1/chat/completions', '{"model":', auth);
  expect(malformed.status).toBe(400);
  const unknown = await harness.post('/v1/chat/completions', chat({ model: 'no-such-model' }), auth);
  expect(unknown.status).toBe(404);
  for (const response of [failed, malformed, unknown]) {
    expect(overheadOf(response)).toMatch(/^\d+\.\d{3}$/);
    await response.text();
  }
});

it('a token count, the model listings, one model and the health routes carry it', async () => {
  const anthropic = { ...auth, 'anthropic-version': '2023-06-01' };
  const replies = [
    await harness.post(
      '/v1/messages/count_tokens',
      { model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] },
      anthropic,
    ),
    await fetch(`${harness.server.url}/v1/models`, { headers: auth }),
    await fetch(`${harness.server.url}/v1/models`, { headers: anthropic }),
    await fetch(`${harness.server.url}/v1beta/models`, { headers: { 'x-goog-api-key': 'team-key' } }),
    await fetch(`${harness.server.url}/v1/models/up-chat`, { headers: auth }),
    await fetch(`${harness.server.url}/v1/models/no-such-model`, { headers: auth }),
    await fetch(`${harness.server.url}/healthz`),
    await fetch(`${harness.server.url}/readyz`),
  ];
  expect(replies.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 404, 200, 200]);
  for (const response of replies) {
    expect(overheadOf(response)).toMatch(/^\d+\.\d{3}$/);
    await response.text();
  }
});

it('a streamed reply has none (its overhead is in the access log)', async () => {
  harness.emulator.enqueue(scriptedText());
  const streamed = await harness.post('/v1/chat/completions', chat({ stream: true }), auth);
  expect(streamed.status).toBe(200);
  await streamed.text();
  expect(overheadOf(streamed)).toBeNull();
});
