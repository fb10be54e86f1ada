/** The stream parser fed SSE payloads directly: block types, deltas, odd streams, hot-path cost. */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isServerError } from '../../core/errors/guards.ts';
import type { StreamEvent } from '../../core/events.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { DeltaScanner } from './delta-scanner.ts';
import { createStreamParser } from './stream.ts';
import { createRecordingBuilder, createTestContext, fixture } from './test-support.ts';

const start = {
  type: 'message_start',
  message: {
    id: 'msg_1',
    model: 'claude-sonnet-4-5',
    content: [],
    usage: { input_tokens: 10, output_tokens: 1 },
  },
};
const stop = [
  {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 7 },
  },
  { type: 'message_stop' },
];

function run(payloads: unknown[], options: { end?: boolean } = {}) {
  const context = createTestContext({ stream: true });
  const { builder, events } = createRecordingBuilder();
  const parser = createStreamParser(context, builder);
  let error: unknown;
  try {
    for (const payload of payloads)
      parser.onEvent(undefined, typeof payload === 'string' ? payload : JSON.stringify(payload));
    if (options.end !== false) parser.onEnd();
  } catch (caught) {
    error = caught;
  }
  const response = builder.finish(error === undefined ? undefined : 'error');
  assertStreamInvariants(events);
  return { events, response, error, warnings: context.logger.entries };
}

function block(index: number, contentBlock: object, deltas: object[] = []): object[] {
  return [
    { type: 'content_block_start', index, content_block: contentBlock },
    ...deltas.map((delta) => ({ type: 'content_block_delta', index, delta })),
    { type: 'content_block_stop', index },
  ];
}

function types(events: StreamEvent[]): string[] {
  return events.map((event) => event.type);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('content blocks', () => {
  it('an event with empty data (a proxy keep-alive) is skipped, as the other readers skip it', () => {
    const result = run([
      start,
      '',
      ...block(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Hi' }]),
      '',
      ...stop,
    ]);
    expect(result.error).toBeUndefined();
    expect(result.response.content).toEqual([{ type: 'text', text: 'Hi' }]);
  });

  it('passes input_json_delta fragments through verbatim and parses the input once at content_block_stop', () => {
    const fragments = ['{"ci', 'ty": "Par', 'is", "days": [1,', ' 2]}'];
    const { events, response } = run([
      start,
      ...block(
        0,
        { type: 'tool_use', id: 'toolu_01A', name: 'weather', input: {} },
        fragments.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      ),
      ...stop,
    ]);
    expect(events.filter((event) => event.type === 'tool-call-delta').map((event) => event.delta)).toEqual(
      fragments,
    );
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({
      input: { city: 'Paris', days: [1, 2] },
    });
    expect(response.content[0]).toMatchObject({ type: 'tool-call', name: 'weather', provider: 'anthropic' });
  });

  it('puts the signature on reasoning-end', () => {
    const { events, response } = run([
      start,
      ...block(0, { type: 'thinking', thinking: '', signature: '' }, [
        { type: 'thinking_delta', thinking: 'Let me ' },
        { type: 'thinking_delta', thinking: 'think.' },
        { type: 'signature_delta', signature: 'sig-abc' },
      ]),
      ...stop,
    ]);
    expect(events.find((event) => event.type === 'reasoning-end')).toEqual({
      type: 'reasoning-end',
      index: 0,
      signature: 'sig-abc',
    });
    expect(response.content).toEqual([
      { type: 'reasoning', text: 'Let me think.', signature: 'sig-abc', provider: 'anthropic' },
    ]);
  });

  it('turns redacted_thinking into a redacted reasoning part carrying its data', () => {
    const { response, events } = run([
      start,
      ...block(0, { type: 'redacted_thinking', data: 'EmwKAhgB' }),
      ...stop,
    ]);
    expect(response.content).toEqual([
      { type: 'reasoning', text: '', redacted: true, data: 'EmwKAhgB', provider: 'anthropic' },
    ]);
    // The start says so: a consumer streams it as redacted (an Anthropic client's redacted_thinking).
    expect(events.filter((event) => event.type.startsWith('reasoning-'))).toEqual([
      { type: 'reasoning-start', index: 0, redacted: true },
      { type: 'reasoning-end', index: 0, redacted: true, data: 'EmwKAhgB' },
    ]);
  });

  it('collects citations_delta into text-end metadata', () => {
    const citation = { type: 'char_location', cited_text: 'Paris', document_index: 0 };
    const { events } = run([
      start,
      ...block(0, { type: 'text', text: '', citations: [] }, [
        { type: 'citations_delta', citation },
        { type: 'text_delta', text: 'Paris.' },
      ]),
      ...stop,
    ]);
    expect(events.find((event) => event.type === 'text-end')).toEqual({
      type: 'text-end',
      index: 0,
      metadata: { 'anthropic.citations': [citation] },
    });
  });

  it('keeps server tool blocks as custom parts with their streamed input assembled', () => {
    const { response, events } = run([
      start,
      ...block(0, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }, [
        { type: 'input_json_delta', partial_json: '' },
        { type: 'input_json_delta', partial_json: '{"query": "ne' },
        { type: 'input_json_delta', partial_json: 'ws"}' },
      ]),
      ...block(1, { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }),
      ...stop,
    ]);
    expect(response.content).toEqual([
      {
        type: 'custom',
        provider: 'anthropic',
        kind: 'server_tool_use',
        data: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'news' } },
      },
      {
        type: 'custom',
        provider: 'anthropic',
        kind: 'web_search_tool_result',
        data: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
      },
    ]);
    expect(types(events).filter((type) => type === 'custom')).toHaveLength(2);
  });

  it('keeps an unknown block type as a custom part, text deltas included', () => {
    const { response, warnings } = run([
      start,
      ...block(0, { type: 'hologram', text: 'A', flavour: 'new' }, [{ type: 'text_delta', text: 'BC' }]),
      ...stop,
    ]);
    expect(response.content).toEqual([
      {
        type: 'custom',
        provider: 'anthropic',
        kind: 'hologram',
        data: { type: 'hologram', text: 'ABC', flavour: 'new' },
      },
    ]);
    expect(warnings).toEqual([]);
  });

  it('skips unknown delta and event types with a WARN, and ignores ping', () => {
    const { response, warnings, events } = run([
      start,
      { type: 'ping' },
      { type: 'telepathy_start', strength: 3 },
      ...block(0, { type: 'text', text: '' }, [
        { type: 'text_delta', text: 'ok' },
        { type: 'sparkle_delta', sparkle: true },
      ]),
      ...stop,
    ]);
    expect(response.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(warnings.map((entry) => entry.fields.what)).toEqual([
      'unknown event type telepathy_start',
      'unknown delta type sparkle_delta',
    ]);
    expect(types(events)[0]).toBe('message-start');
  });

  it('keeps a pre-filled start block and survives payloads that are not events', () => {
    const { response, warnings } = run([
      start,
      'null',
      '[1,2]',
      ...block(0, { type: 'text', text: 'Already here.' }),
      { type: 'content_block_delta', index: 7, delta: { type: 'text_delta', text: 'orphan' } },
      ...stop,
    ]);
    // The delta for a block never started is kept in a part of its own (never silently dropped).
    expect(response.content).toEqual([
      { type: 'text', text: 'Already here.' },
      { type: 'text', text: 'orphan' },
    ]);
    expect(warnings.map((entry) => entry.fields.what)).toEqual([
      'an event without a type',
      'an event without a type',
      'a text_delta for block 7, which was not started: opened it',
      'blocks left open at message_stop',
    ]);
  });

  it('closes blocks left open at message_stop', () => {
    const { response, warnings } = run([
      start,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'server_tool_use', id: 's', name: 'x', input: {} },
      },
      ...stop,
    ]);
    expect(response.content).toHaveLength(1);
    expect(warnings.map((entry) => entry.fields.what)).toEqual(['blocks left open at message_stop']);
  });
});

describe('deltas for blocks never started', () => {
  const delta = (index: number, body: object) => ({ type: 'content_block_delta', index, delta: body });

  it('a text delta for a block never started opens a text part: the text is kept', () => {
    const { response, error, warnings } = run([
      start,
      delta(0, { type: 'text_delta', text: 'Hello' }),
      ...block(1, { type: 'text', text: '' }, [{ type: 'text_delta', text: ' world' }]),
      ...stop,
    ]);
    expect(error).toBeUndefined();
    expect(response.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')).toBe(
      'Hello world',
    );
    expect(JSON.stringify(warnings)).toContain('was not started');
  });

  it('a delta before message_start keeps its text', () => {
    const { response, error } = run([delta(0, { type: 'text_delta', text: 'Early' }), start, ...stop]);
    expect(error).toBeUndefined();
    expect(response.content).toMatchObject([{ type: 'text', text: 'Early' }]);
  });

  it('a tool input for a block never started fails the stream, classified, with the text so far', () => {
    const { response, error } = run([
      start,
      ...block(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Let me look.' }]),
      delta(1, { type: 'input_json_delta', partial_json: '{"q":' }),
      ...stop,
    ]);
    expect(isServerError(error)).toBe(true);
    expect(response.content).toMatchObject([{ type: 'text', text: 'Let me look.' }]);
  });
});

describe('block indexes', () => {
  it.each([['"1"'], ['{"a":1}'], ['-1'], ['1.5']])(
    'an index of %s is a broken stream: it fails, classified, naming the index, with the text so far',
    (index) => {
      const { response, error } = run([
        start,
        ...block(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Kept.' }]),
        `{"type":"content_block_start","index":${index},"content_block":{"type":"text","text":""}}`,
        ...stop,
      ]);
      expect(isServerError(error)).toBe(true);
      expect((error as Error).message).toContain(`carried index ${index}`);
      expect(response.content).toMatchObject([{ type: 'text', text: 'Kept.' }]);
    },
  );

  it('an absent index is block 0, as a single-block reply may send it', () => {
    const { response, error } = run([
      start,
      { type: 'content_block_start', content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 'One.' } },
      { type: 'content_block_stop' },
      ...stop,
    ]);
    expect(error).toBeUndefined();
    expect(response.content).toMatchObject([{ type: 'text', text: 'One.' }]);
  });
});

describe('message ids', () => {
  it('an id that is no string is no id: a second message_start names "(no id)", never "[object Object]"', () => {
    const started = (id: unknown) => ({
      type: 'message_start',
      message: { id, model: { name: 'x' }, usage: {} },
    });
    const { error, response } = run([
      started({ a: 1 }),
      ...block(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Kept.' }]),
      started('msg_2'),
    ]);
    expect((error as Error).message).toContain('started message msg_2 while message (no id) was still open');
    expect((error as Error).message).not.toContain('[object Object]');
    expect(response.responseId).toBeUndefined();
    expect(response.content).toMatchObject([{ type: 'text', text: 'Kept.' }]);
  });
});

describe('message lifecycle', () => {
  it('maps stop reasons with the raw value and the matched stop sequence', () => {
    const { response } = run([
      start,
      ...block(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'one, two' }]),
      {
        type: 'message_delta',
        delta: { stop_reason: 'stop_sequence', stop_sequence: 'three' },
        usage: { output_tokens: 3 },
      },
      { type: 'message_stop' },
    ]);
    expect(response).toMatchObject({
      finishReason: 'stop-sequence',
      rawFinishReason: 'stop_sequence',
      metadata: { 'anthropic.stop_sequence': 'three' },
    });
  });

  it('lets message_delta usage override message_start usage per bucket', () => {
    const { events, response } = run([
      {
        ...start,
        message: {
          ...start.message,
          usage: {
            input_tokens: 5,
            cache_read_input_tokens: 100,
            cache_creation_input_tokens: 20,
            output_tokens: 1,
          },
        },
      },
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { input_tokens: 6, output_tokens: 40, output_tokens_details: { thinking_tokens: 12 } },
      },
      { type: 'message_stop' },
    ]);
    expect(events.filter((event) => event.type === 'usage')).toHaveLength(2);
    expect(response.usage).toEqual({ input: 6, cacheRead: 100, cacheWrite: 20, output: 40, reasoning: 12 });
  });

  it('fails with stream_truncated when the body ends before message_stop, keeping the content', () => {
    const { error, response } = run([
      start,
      ...block(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'partial' }]),
    ]);
    expect(error).toMatchObject({ name: 'NetworkError', providerCode: 'stream_truncated', retryable: true });
    expect(response.content).toEqual([{ type: 'text', text: 'partial' }]);
  });

  it('fails with stream_truncated on an empty body', () => {
    expect(run([]).error).toMatchObject({ providerCode: 'stream_truncated' });
  });

  it('classifies an in-stream overloaded_error as a retryable server error (as on every adapter)', () => {
    const { error, response } = run([
      start,
      ...block(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Half an ans' }]),
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]);
    expect(isServerError(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'overloaded_error', retryable: true });
    expect(response.finishReason).toBe('error');
    expect(response.content).toEqual([{ type: 'text', text: 'Half an ans' }]);
  });

  it('appends a message that follows message_stop and adds its usage', () => {
    const second = {
      type: 'message_start',
      message: { id: 'msg_2', content: [], usage: { input_tokens: 3, output_tokens: 1 } },
    };
    const { response, warnings } = run([
      start,
      ...block(0, { type: 'text', text: 'one' }),
      ...stop,
      second,
      ...block(0, { type: 'text', text: 'two' }),
      { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 2 } },
      { type: 'message_stop' },
    ]);
    expect(response.content).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
    expect(response.usage).toMatchObject({ input: 13, output: 9 });
    expect(response.finishReason).toBe('max-tokens');
    expect(response.metadata?.['anthropic.message_ids']).toEqual(['msg_1', 'msg_2']);
    expect(warnings).toHaveLength(1);
  });
});

describe('hot path', () => {
  it('parses each SSE payload at most once (wire-shape deltas not at all), plus one parse per tool input', () => {
    const lines = readFileSync(fixture('anthropic-json-tool.1.chunks.txt'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const scanned = lines.filter((line) => new DeltaScanner().scan(line)).length;
    expect(scanned).toBeGreaterThan(0);
    const parse = vi.spyOn(JSON, 'parse');
    const { response } = run(lines);
    expect(parse).toHaveBeenCalledTimes(lines.length - scanned + 1);
    expect(response.content).toHaveLength(1);
  });
});
