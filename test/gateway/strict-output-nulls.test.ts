/**
 * An Anthropic client's output schema with an optional property, routed to a Chat upstream: the
 * upstream gets it strict (required, nullable) and answers `null`; the client gets the property left
 * out, as its own schema (zod `.optional()`) wants — whole and streamed.
 */
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, nickname: { type: 'string' } },
  required: ['name'],
  additionalProperties: false,
};
const body = {
  model: 'up-chat',
  max_tokens: 100,
  messages: [{ role: 'user' as const, content: 'Who?' }],
  output_config: { format: { type: 'json_schema', schema } },
};
const answer = {
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text: '{"name":"Ada","nickname":null}' }],
};

it('whole: the null strict mode asked for is left out of the reply', async () => {
  harness.emulator.enqueue(answer);
  const { anthropic } = createClients(harness.server.url);
  const message = await anthropic.messages.create(body as never);
  const upstream = harness.emulator.requests.at(-1)!.body as {
    response_format: { json_schema: { schema: { required: string[] } } };
  };
  expect(upstream.response_format.json_schema.schema.required).toEqual(['name', 'nickname']);
  expect(message.content).toMatchObject([{ type: 'text', text: '{"name":"Ada"}' }]);
});

it('streamed: the text arrives cleaned, in one delta', async () => {
  harness.emulator.enqueue({ ...answer, chunkSize: 6 });
  const { anthropic } = createClients(harness.server.url);
  const stream = await anthropic.messages.create({ ...body, stream: true } as never);
  const deltas: string[] = [];
  for await (const event of stream as unknown as AsyncIterable<RawMessageStreamEvent>)
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
      deltas.push(event.delta.text);
  expect(deltas).toEqual(['{"name":"Ada"}']);
});
