/**
 * A value that throws when converted to a string (`{"toString": 1}`: JavaScript's `String()` and
 * template literals call it) where a protocol wants a `type` or `role` is a 400 naming the field in
 * the client's protocol, never a 500: refusal messages show a client's value as JSON (`shown`).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { anthropicClient, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const hostile = { toString: 1 };
const cases: Array<[string, string, object, Record<string, string>?]> = [
  ['Chat role', '/v1/chat/completions', { model: 'up-chat', messages: [{ role: hostile, content: 'hi' }] }],
  [
    'Chat tool type',
    '/v1/chat/completions',
    { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: hostile }] },
  ],
  ['Responses item type', '/v1/responses', { model: 'up-responses', input: [{ type: hostile }] }],
  [
    'Responses input_tokens item type',
    '/v1/responses/input_tokens',
    { model: 'up-responses', input: [{ type: hostile }] },
  ],
  [
    'Messages block type',
    '/v1/messages',
    { model: 'up-anthropic', max_tokens: 10, messages: [{ role: 'user', content: [{ type: hostile }] }] },
    anthropicClient,
  ],
  [
    'count_tokens block type',
    '/v1/messages/count_tokens',
    {
      model: 'up-anthropic',
      messages: [{ role: 'user', content: [{ type: { valueOf: {}, toString: {} } }] }],
    },
    anthropicClient,
  ],
];

it.each(cases)('%s: a 400 naming the value as JSON', async (_, path, body, headers) => {
  const response = await harness.post(path, body, headers);
  expect(response.status).toBe(400);
  expect(await response.text()).toContain('toString');
});
