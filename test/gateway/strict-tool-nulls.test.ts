/**
 * An Anthropic client's tool with optional parameters, routed to a Chat upstream whose adapter
 * sends tools strict: the upstream gets them required and nullable and answers `null`; the client's
 * `tool_use` input has the parameters left out, as its own schema wants — whole and streamed.
 */
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness({}, { openai: { strictTools: true } });
});
afterAll(async () => {
  await harness?.close();
});

const inputSchema = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    where: { type: 'object', properties: { country: { type: 'string' }, region: { type: 'string' } } },
  },
  required: ['city'],
};
const body = {
  model: 'up-chat',
  max_tokens: 100,
  messages: [{ role: 'user' as const, content: 'Weather?' }],
  tools: [{ name: 'weather', input_schema: inputSchema }],
};
const answer = {
  type: 'scripted' as const,
  content: [
    {
      type: 'tool-call' as const,
      name: 'weather',
      input: { city: 'Rome', where: { country: 'IT', region: null } },
    },
  ],
};
const cleaned = { city: 'Rome', where: { country: 'IT' } };

it('whole: the nulls strict mode asked for are left out of the tool input', async () => {
  harness.emulator.enqueue(answer);
  const { anthropic } = createClients(harness.server.url);
  const message = await anthropic.messages.create(body as never);
  const upstream = harness.emulator.requests.at(-1)!.body as {
    tools: Array<{ function: { strict?: boolean; parameters: { required: string[] } } }>;
  };
  expect(upstream.tools[0]!.function.strict).toBe(true);
  expect(upstream.tools[0]!.function.parameters.required).toEqual(['city', 'where']);
  const call = message.content.find((block) => block.type === 'tool_use');
  expect(call?.input).toEqual(cleaned);
});

it('streamed: the input arrives cleaned', async () => {
  harness.emulator.enqueue({ ...answer, chunkSize: 6 });
  const { anthropic } = createClients(harness.server.url);
  const stream = await anthropic.messages.create({ ...body, stream: true } as never);
  let json = '';
  for await (const event of stream as unknown as AsyncIterable<RawMessageStreamEvent>)
    if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta')
      json += event.delta.partial_json;
  expect(JSON.parse(json)).toEqual(cleaned);
});
