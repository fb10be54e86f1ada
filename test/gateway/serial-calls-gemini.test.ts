/**
 * A client that forbids parallel tool calls — Chat or Responses `parallel_tool_calls: false`,
 * Anthropic `disable_parallel_tool_use` — routed to Gemini, which has no such setting: the reply
 * keeps the model's first call, the others dropped with a WARN, whole and streamed.
 */
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const twoCalls = {
  type: 'scripted' as const,
  content: [
    { type: 'tool-call' as const, name: 'weather', input: { city: 'Paris' } },
    { type: 'tool-call' as const, name: 'weather', input: { city: 'Rome' } },
  ],
};
const parameters = { type: 'object', properties: { city: { type: 'string' } } };
const dropped = () =>
  harness.logger.entries.filter(
    (entry) => entry.message === 'dropped a parallel tool call: the request asked for one call at a time',
  ).length;

it('a Chat client’s parallel_tool_calls: false → one call', async () => {
  harness.emulator.enqueue(twoCalls);
  const before = dropped();
  const { openai } = createClients(harness.server.url);
  const completion = await openai.chat.completions.create({
    model: 'up-gemini',
    messages: [{ role: 'user', content: 'x' }],
    parallel_tool_calls: false,
    tools: [{ type: 'function', function: { name: 'weather', parameters } }],
  });
  const calls = completion.choices[0]!.message.tool_calls ?? [];
  expect(calls.map((call) => call.type === 'function' && call.function.arguments)).toEqual([
    '{"city":"Paris"}',
  ]);
  expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
  expect(dropped()).toBe(before + 1);
});

it('an Anthropic client’s disable_parallel_tool_use, streamed → one tool_use block', async () => {
  harness.emulator.enqueue({ ...twoCalls, chunkSize: 3 });
  const { anthropic } = createClients(harness.server.url);
  const stream = await anthropic.messages.create({
    model: 'up-gemini',
    max_tokens: 100,
    stream: true,
    messages: [{ role: 'user', content: 'x' }],
    tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    tools: [{ name: 'weather', input_schema: parameters as never }],
  });
  const started: string[] = [];
  for await (const event of stream as AsyncIterable<RawMessageStreamEvent>)
    if (event.type === 'content_block_start' && event.content_block.type === 'tool_use')
      started.push(event.content_block.name);
  expect(started).toEqual(['weather']);
});

it('parallel calls allowed (no setting): both calls reach the client', async () => {
  harness.emulator.enqueue(twoCalls);
  const { openai } = createClients(harness.server.url);
  const completion = await openai.chat.completions.create({
    model: 'up-gemini',
    messages: [{ role: 'user', content: 'x' }],
    tools: [{ type: 'function', function: { name: 'weather', parameters } }],
  });
  expect(completion.choices[0]!.message.tool_calls).toHaveLength(2);
});
