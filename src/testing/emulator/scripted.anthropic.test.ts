/** Scripted Anthropic Messages responses: the SSE event sequence and the message object. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from './index.ts';
import { anthropicBody, anthropicHeaders, parseSse, payloads, postJson } from './test-support.ts';

let emulator: Emulator;

beforeEach(async () => {
  emulator = await startEmulator();
});

afterEach(async () => {
  await emulator.close();
});

async function stream(): Promise<Array<Record<string, unknown>>> {
  const response = await postJson(
    `${emulator.url}/v1/messages`,
    anthropicBody({ stream: true }),
    anthropicHeaders,
  );
  const frames = parseSse(await response.text());
  for (const frame of frames) expect(frame.event).toBe(JSON.parse(frame.data).type);
  return payloads(frames);
}

function deltas(events: Array<Record<string, unknown>>, index: number, field: string): string {
  return events
    .filter((event) => event.type === 'content_block_delta' && event.index === index)
    .map((event) => (event.delta as Record<string, string>)[field] ?? '')
    .join('');
}

describe('scripted Anthropic stream', () => {
  it('streams text as message_start, one block, message_delta and message_stop', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hello there, how are you?' }] });
    const events = await stream();
    const types = events.map((event) => event.type);
    expect(types.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'ping']);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(new Set(types.slice(3, -3))).toEqual(new Set(['content_block_delta']));
    expect(deltas(events, 0, 'text')).toBe('Hello there, how are you?');
    const start = events[0]?.message as Record<string, unknown>;
    expect(start.id).toMatch(/^msg_01/);
    expect(start.model).toBe('claude-sonnet-4-5-20250929');
    const messageDelta = events.at(-2) as { delta: { stop_reason: string } };
    expect(messageDelta.delta.stop_reason).toBe('end_turn');
  });

  it('streams thinking with a signature_delta before a tool_use with input_json_delta', async () => {
    const input = { city: 'Paris', days: [1, 2, 3] };
    emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'The user wants weather.', signature: 'sig-123' },
        { type: 'tool-call', name: 'weather', input },
      ],
      usage: { input: 40, output: 12, reasoning: 6, cacheRead: 30, cacheWrite: 5 },
    });
    const events = await stream();
    const starts = events.filter((event) => event.type === 'content_block_start');
    expect(starts.map((event) => (event.content_block as { type: string }).type)).toEqual([
      'thinking',
      'tool_use',
    ]);
    expect(deltas(events, 0, 'thinking')).toBe('The user wants weather.');
    expect(deltas(events, 0, 'signature')).toBe('sig-123');
    const toolBlock = starts[1]?.content_block as { id: string; name: string; input: object };
    expect(toolBlock.id).toMatch(/^toolu_01[A-Za-z0-9]{22}$/);
    expect(toolBlock).toMatchObject({ name: 'weather', input: {} });
    expect(JSON.parse(deltas(events, 1, 'partial_json'))).toEqual(input);
    const messageDelta = events.at(-2) as { delta: { stop_reason: string }; usage: Record<string, unknown> };
    expect(messageDelta.delta.stop_reason).toBe('tool_use');
    // As the Messages API reports it: the cache write split by lifetime too (all 5-minute here).
    expect(messageDelta.usage).toEqual({
      input_tokens: 40,
      cache_creation_input_tokens: 5,
      cache_creation: { ephemeral_5m_input_tokens: 5, ephemeral_1h_input_tokens: 0 },
      cache_read_input_tokens: 30,
      output_tokens: 18,
    });
  });

  it('cuts text deltas at chunkSize characters without splitting an emoji', async () => {
    emulator.enqueue({ type: 'scripted', chunkSize: 3, content: [{ type: 'text', text: 'ab🌍cdéfg' }] });
    const events = await stream();
    const pieces = events
      .filter((event) => event.type === 'content_block_delta')
      .map((event) => (event.delta as { text: string }).text);
    expect(pieces).toEqual(['ab🌍', 'cdé', 'fg']);
  });
});

describe('scripted Anthropic message', () => {
  it('answers a non-streaming request with a message object', async () => {
    emulator.enqueue({
      type: 'scripted',
      model: 'claude-haiku-4-5-20251001',
      content: [
        { type: 'reasoning', text: 'Think.', signature: 'sig' },
        { type: 'text', text: 'Calling a tool.' },
        { type: 'tool-call', id: 'toolu_fixed', name: 'lookup', input: { q: 'x' } },
      ],
      finishReason: 'max_tokens',
      usage: { input: 7, output: 9 },
    });
    const response = await postJson(`${emulator.url}/v1/messages`, anthropicBody(), anthropicHeaders);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    const message = (await response.json()) as Record<string, unknown>;
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5-20251001',
      stop_reason: 'max_tokens',
      stop_sequence: null,
      content: [
        { type: 'thinking', thinking: 'Think.', signature: 'sig' },
        { type: 'text', text: 'Calling a tool.' },
        { type: 'tool_use', id: 'toolu_fixed', name: 'lookup', input: { q: 'x' } },
      ],
      usage: {
        input_tokens: 7,
        output_tokens: 11,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    });
  });
});
