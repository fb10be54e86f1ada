/**
 * The input count an upstream gives with its first content reaches an Anthropic client's
 * `message_start` (LangChain's ChatAnthropic reads input tokens only there): a Gemini chunk's
 * `usageMetadata` is read before the chunk's content.
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

const text = (value: string, finishReason?: string) => ({
  candidates: [{ content: { role: 'model', parts: [{ text: value }] }, index: 0, finishReason }],
});

it('Gemini upstream → Anthropic client streamed: message_start.usage.input_tokens is the promptTokenCount', async () => {
  harness.emulator.enqueue({
    type: 'sse',
    events: [
      {
        data: {
          ...text('It is su'),
          usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 3, totalTokenCount: 53 },
        },
      },
      { data: text('nny.') },
      {
        data: {
          ...text('', 'STOP'),
          usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 7, totalTokenCount: 57 },
        },
      },
    ],
  });
  const stream = await createClients(harness.server.url).anthropic.messages.create({
    model: 'up-gemini',
    max_tokens: 50,
    messages: [{ role: 'user', content: 'Weather?' }],
    stream: true,
  });
  const events: RawMessageStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const start = events.find((event) => event.type === 'message_start');
  expect(start?.message.usage.input_tokens).toBe(50);
  // At most 1 output token at the start, as the API: clients adding it to message_delta's count do not count 7 twice.
  expect(start?.message.usage.output_tokens).toBeLessThanOrEqual(1);
  const delta = events.find((event) => event.type === 'message_delta');
  expect(delta?.usage).toMatchObject({ input_tokens: 50, output_tokens: 7 });
});
