/**
 * Redacted thinking an upstream streams reaches a streaming Anthropic client as a `redacted_thinking`
 * block (`content_block_start` with its data, then `content_block_stop`), as the Anthropic API
 * streams it and as a whole reply gives it; the SDK's accumulated message goes back as the same
 * block. Found by a prober: it came as an empty `thinking` block whose signature carried the data.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => harness.emulator.clear());
afterAll(() => harness.close());

const sse = (type: string, payload: object) => ({ event: type, data: { type, ...payload } });
const redactedReply = {
  type: 'sse' as const,
  events: [
    sse('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    }),
    sse('content_block_start', {
      index: 0,
      content_block: { type: 'redacted_thinking', data: 'EmwKAhgB-raw' },
    }),
    sse('content_block_stop', { index: 0 }),
    sse('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
    sse('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'hi' } }),
    sse('content_block_stop', { index: 1 }),
    sse('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 2 },
    }),
    sse('message_stop', {}),
  ],
};

it('an Anthropic client streams it as redacted_thinking, and sends it back to Claude as it came', async () => {
  const { anthropic } = createClients(harness.server.url);
  harness.emulator.enqueue(redactedReply);
  const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
  const stream = anthropic.messages.stream({
    model: 'up-anthropic',
    max_tokens: 2000,
    thinking,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const started: unknown[] = [];
  stream.on('streamEvent', (event) => {
    if (event.type === 'content_block_start') started.push(event.content_block);
  });
  const message = await stream.finalMessage();
  expect(started).toEqual([
    { type: 'redacted_thinking', data: expect.any(String) as string },
    { type: 'text', text: '' },
  ]);
  expect(message.content.map((block) => block.type)).toEqual(['redacted_thinking', 'text']);

  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
  await anthropic.messages.create({
    model: 'up-anthropic',
    max_tokens: 2000,
    thinking,
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: message.content },
      { role: 'user', content: 'more' },
    ],
  });
  const sent = harness.emulator.requests.at(-1)!.body as { messages: Array<{ content: unknown[] }> };
  expect(sent.messages[1]!.content[0]).toEqual({ type: 'redacted_thinking', data: 'EmwKAhgB-raw' });
});

it('a Chat client streams the reply as before: the text, no reasoning text', async () => {
  harness.emulator.enqueue(redactedReply);
  const response = await harness.post('/v1/chat/completions', {
    model: 'up-anthropic',
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(body).toContain('"content":"hi"');
  expect(body).not.toContain('EmwKAhgB');
});
