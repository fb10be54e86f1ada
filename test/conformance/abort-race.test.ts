/**
 * Abort racing the last event (#18 point 11): once the consumer aborts, the next event it sees is
 * a `cancelled` finish — even when the response had completed and its last events (a tool call,
 * the `tool-call` finish) were still buffered — unless it had already received the finish.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/core/events.ts';
import { userText } from '../../src/core/transcript.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';

const sse = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","usage":{"input_tokens":5,"output_tokens":0}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking."}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"rm","input":{}}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\":\\"/\\"}"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join('');

const fetch = (async () =>
  new Response(sse, {
    headers: { 'content-type': 'text/event-stream' },
  })) as unknown as typeof globalThis.fetch;

async function run(abortAfter: number) {
  const adapter = createAnthropic({ apiKey: 'abort-race-key-0123', fetch, maxRetries: 0 });
  const controller = new AbortController();
  const stream = adapter.stream(
    { model: 'anthropic:claude-sonnet-4-5', transcript: [userText('hi')], maxOutputTokens: 64 },
    { signal: controller.signal },
  );
  const seen: StreamEvent[] = [];
  const iterator = stream[Symbol.asyncIterator]();
  for (let index = 0; index < abortAfter; index++) seen.push((await iterator.next()).value as StreamEvent);
  // Let the whole response arrive and be buffered behind the slow consumer.
  await new Promise((resolve) => setTimeout(resolve, 30));
  controller.abort();
  const after: StreamEvent[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    after.push(next.value);
  }
  const result = await stream.result();
  await adapter.close();
  return { seen, after, result };
}

describe('abort racing the last event', () => {
  it.each([1, 2, 4])(
    'aborted after %i events: the next event is a cancelled finish, then the end',
    async (count) => {
      const { after, result } = await run(count);
      expect(after.map((event) => event.type)).toEqual(['finish']);
      const finish = after[0] as Extract<StreamEvent, { type: 'finish' }>;
      expect(finish.response.finishReason).toBe('cancelled');
      expect(result.finishReason).toBe('cancelled');
    },
  );

  it('a consumer that already received the finish keeps it', async () => {
    const adapter = createAnthropic({ apiKey: 'abort-race-key-0123', fetch, maxRetries: 0 });
    const controller = new AbortController();
    const stream = adapter.stream(
      { model: 'anthropic:claude-sonnet-4-5', transcript: [userText('hi')], maxOutputTokens: 64 },
      { signal: controller.signal },
    );
    const events: StreamEvent[] = [];
    for await (const event of stream) events.push(event);
    controller.abort();
    expect(events.at(-1)?.type).toBe('finish');
    expect((await stream.result()).finishReason).toBe('tool-call');
    await adapter.close();
  });
});
