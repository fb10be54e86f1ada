/**
 * A Chat upstream's annotations that come after the text they cite has ended (a tool call came
 * between, or a reasoning part) are the response's, offsets the whole message's: they still reach
 * a Chat client (one annotations delta before the finish) and a Responses client (an
 * `output_text.annotation.added` for the part holding the span, and the final response's
 * `output_text`).
 */
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';
import { chatChunk as chunk, chatCitation, flatCitation } from '../support/openai-wire.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const text = 'Paris is sunny [weather.example].';
const paris = 'https://weather.example/paris';
const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'book', arguments: '{}' } };
/** The text, a tool call (ending the text part), then the annotations citing the text. */
const streamed = () => ({
  type: 'sse' as const,
  events: [
    { data: chunk({ role: 'assistant', content: text }) },
    { data: chunk({ tool_calls: [call] }) },
    { data: chunk({ annotations: [chatCitation(15, 32, paris)] }) },
    { data: chunk({}, 'tool_calls') },
    { data: '[DONE]' },
  ],
});
const tools = [{ type: 'function' as const, function: { name: 'book', parameters: { type: 'object' } } }];

it('annotations after their text ended reach a streamed Chat client, before the finish', async () => {
  harness.emulator.enqueue(streamed());
  const stream = await createClients(harness.server.url).openai.chat.completions.create({
    model: 'up-chat',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools,
    stream: true,
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const received of stream) chunks.push(received);
  const annotationsOf = (received: ChatCompletionChunk) =>
    (received.choices[0]?.delta as { annotations?: unknown[] } | undefined)?.annotations;
  const carrying = chunks.findIndex((received) => annotationsOf(received) !== undefined);
  expect(carrying).toBeGreaterThan(-1);
  expect(annotationsOf(chunks[carrying]!)).toEqual([chatCitation(15, 32, paris)]);
  const finish = chunks.findIndex((received) => received.choices[0]?.finish_reason === 'tool_calls');
  expect(carrying).toBeLessThan(finish);
});

it('annotations after their text ended reach a streamed Responses client on its output_text', async () => {
  harness.emulator.enqueue(streamed());
  const events: { type: string; annotation?: unknown; annotation_index?: number }[] = [];
  const stream = createClients(harness.server.url).openai.responses.stream({
    model: 'up-chat',
    input: 'Weather in Paris?',
    tools: [{ type: 'function', name: 'book', parameters: { type: 'object' }, strict: false }],
  });
  for await (const event of stream) events.push(event);
  const final = await stream.finalResponse();
  const added = events.filter((event) => event.type === 'response.output_text.annotation.added');
  expect(added).toMatchObject([{ annotation_index: 0, annotation: flatCitation(15, 32, paris) }]);
  const message = final.output.find((item) => item.type === 'message');
  expect(message?.type === 'message' && message.content[0]).toMatchObject({
    text,
    annotations: [flatCitation(15, 32, paris)],
  });
  expect(final.output.some((item) => item.type === 'function_call')).toBe(true);
});
