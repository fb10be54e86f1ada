import { afterEach, describe, expect, it, vi } from 'vitest';
import { isNetworkError, isRateLimitError, isServerError } from '../../core/errors/guards.ts';
import type { StreamEvent } from '../../core/events.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { presets } from '../openai-compatible/presets.ts';
import { defaultQuirks, mergeQuirks, openaiQuirks } from './quirks.ts';
import { createTestContext, feedStream, reasoningOf, textOf, toolCallsOf } from './test-support.ts';

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini' };

/** One chunk's JSON text with `delta` and `finish_reason` on choice 0. */
function chunk(delta: object, finish: string | null = null, extra: object = {}): string {
  return JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
}

function usageChunk(usage: object): string {
  return JSON.stringify({ ...base, choices: [], usage });
}

const usage = {
  prompt_tokens: 100,
  completion_tokens: 40,
  total_tokens: 140,
  prompt_tokens_details: { cached_tokens: 30 },
  completion_tokens_details: { reasoning_tokens: 10 },
};

function types(events: StreamEvent[]): string[] {
  return events.map((event) => event.type);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('stream parser: text', () => {
  it('streams a role-only first chunk, content deltas, finish, usage-only chunk and [DONE]', () => {
    const result = feedStream(
      [
        chunk({ role: 'assistant', content: '', refusal: null }),
        chunk({ content: 'Hello' }),
        chunk({}),
        chunk({ content: ', world' }),
        chunk({}, 'stop'),
        usageChunk(usage),
        '[DONE]',
      ],
      openaiQuirks,
    );
    expect(result.error).toBeUndefined();
    assertStreamInvariants(result.events);
    expect(types(result.events)).toEqual([
      'message-start',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'usage',
      'finish',
    ]);
    expect(result.events[0]).toMatchObject({ responseId: 'chatcmpl-1', model: 'openai:gpt-4.1-mini' });
    expect(textOf(result.response)).toBe('Hello, world');
    expect(result.response.finishReason).toBe('completed');
    expect(result.response.rawFinishReason).toBe('stop');
    // Cached prompt tokens are subtracted so the buckets stay disjoint.
    expect(result.response.usage).toEqual({
      input: 70,
      cacheRead: 30,
      cacheWrite: 0,
      output: 40,
      reasoning: 10,
    });
  });

  it('never JSON-parses [DONE] and parses each other event exactly once', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const payloads = [chunk({ role: 'assistant' }), chunk({ content: 'a' }), chunk({}, 'stop'), '[DONE]'];
    const result = feedStream(payloads, openaiQuirks);
    expect(result.error).toBeUndefined();
    expect(parse).toHaveBeenCalledTimes(3);
    expect(parse.mock.calls.map((call) => call[0])).not.toContain('[DONE]');
  });

  it('completes a stream that ends without [DONE] once a finish reason arrived', () => {
    const result = feedStream([chunk({ content: 'done' }, 'stop')], openaiQuirks);
    expect(result.error).toBeUndefined();
    expect(result.response.finishReason).toBe('completed');
    expect(textOf(result.response)).toBe('done');
  });

  it('fails a stream cut before any finish reason with a retryable stream_truncated NetworkError', () => {
    const result = feedStream([chunk({ content: 'partial' }), usageChunk(usage)], openaiQuirks);
    expect(isNetworkError(result.error)).toBe(true);
    expect(result.error).toMatchObject({ providerCode: 'stream_truncated', retryable: true });
    assertStreamInvariants(result.events);
    expect(result.response.finishReason).toBe('error');
    expect(textOf(result.response)).toBe('partial');
    expect(result.response.usage.input).toBe(70);
  });

  it('throws a SyntaxError on malformed JSON (the runtime turns it into invalid_stream)', () => {
    const result = feedStream([chunk({ content: 'a' }), '{"choices": garbage'], openaiQuirks);
    expect(result.error).toBeInstanceOf(SyntaxError);
    expect(textOf(result.response)).toBe('a');
  });

  it('never opens a part for empty strings', () => {
    const result = feedStream(
      [
        chunk({ role: 'assistant', content: '', reasoning_content: '' }),
        chunk({ content: '' }, 'stop'),
        '[DONE]',
      ],
      openaiQuirks,
    );
    expect(types(result.events)).toEqual(['message-start', 'finish']);
    expect(result.response.content).toEqual([]);
  });

  it('waits past an Azure prompt-filter chunk (empty id and model) to name the response', () => {
    const filter = JSON.stringify({ choices: [], created: 0, id: '', model: '', prompt_filter_results: [] });
    const result = feedStream([filter, chunk({ content: 'x' }, 'stop'), '[DONE]'], openaiQuirks);
    expect(result.events[0]).toMatchObject({ type: 'message-start', responseId: 'chatcmpl-1' });
    expect(result.response.model).toBe('openai:gpt-4.1-mini');
  });

  it('keeps a colon inside the wire model name (Ollama tags)', () => {
    const context = createTestContext({ provider: 'ollama', model: 'qwen3:8b', stream: true });
    const payload = JSON.stringify({ id: 'c', model: 'qwen3:8b', choices: [{ delta: { content: 'hi' } }] });
    const result = feedStream([payload, chunk({}, 'stop'), '[DONE]'], defaultQuirks, context);
    expect(result.response.model).toBe('ollama:qwen3:8b');
  });

  it('maps an unknown finish reason to other and keeps the raw value', () => {
    const result = feedStream(
      [chunk({ content: 'x' }, 'insufficient_system_resource'), '[DONE]'],
      openaiQuirks,
    );
    expect(result.response.finishReason).toBe('other');
    expect(result.response.rawFinishReason).toBe('insufficient_system_resource');
  });
});

describe('stream parser: tool calls', () => {
  const call = (index: number, fields: object) => ({ index, ...fields });

  it('accumulates argument fragments per index and passes them through raw', () => {
    const result = feedStream(
      [
        chunk({ role: 'assistant', content: null }),
        chunk({
          tool_calls: [
            call(0, { id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } }),
          ],
        }),
        chunk({ tool_calls: [call(0, { function: { arguments: '{"pa' } })] }),
        chunk({ tool_calls: [call(0, { function: { arguments: 'th": "a.txt"}' } })] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    const deltas = result.events.filter((event) => event.type === 'tool-call-delta');
    expect(deltas.map((event) => (event.type === 'tool-call-delta' ? event.delta : ''))).toEqual([
      '{"pa',
      'th": "a.txt"}',
    ]);
    const end = result.events.find((event) => event.type === 'tool-call-end');
    expect(end).toMatchObject({ input: { path: 'a.txt' } });
    expect(result.response.finishReason).toBe('tool-call');
    const [part] = result.response.content;
    expect(part).toMatchObject({ type: 'tool-call', name: 'read', provider: 'openai' });
    // The canonical id is a fresh tu_ id mapped to the provider's call_a.
    expect(part?.type === 'tool-call' && part.id).toMatch(/^tu_/);
  });

  it('streams parallel tool calls in order, each started once and ended at finish', () => {
    const result = feedStream(
      [
        chunk({ content: 'Checking both.' }),
        chunk({
          tool_calls: [call(0, { id: 'call_1', function: { name: 'weather', arguments: '{"city":' } })],
        }),
        chunk({ tool_calls: [call(0, { function: { arguments: '"Paris"}' } })] }),
        chunk({
          tool_calls: [
            call(1, { id: 'call_2', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }),
          ],
        }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    expect(textOf(result.response)).toBe('Checking both.');
    expect(toolCallsOf(result.response)).toEqual([
      { name: 'weather', input: { city: 'Paris' } },
      { name: 'weather', input: { city: 'Oslo' } },
    ]);
  });

  it('takes a whole call in one chunk without an index, with the finish reason in the same chunk', () => {
    const whole = { id: 'gSIMJiOkT', function: { name: 'weather', arguments: '{"location": "SF"}' } };
    const result = feedStream(
      [chunk({ content: null, tool_calls: [whole] }, 'tool_calls'), '[DONE]'],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response)).toEqual([{ name: 'weather', input: { location: 'SF' } }]);
    expect(result.response.finishReason).toBe('tool-call');
  });

  it('fails a stream whose [DONE] came before any finish reason as stream_truncated, marking the call', () => {
    const start = call(0, { id: 'call_x', function: { name: 'f', arguments: '{"a":1}' } });
    const result = feedStream([chunk({ tool_calls: [start] }), '[DONE]'], openaiQuirks);
    assertStreamInvariants(result.events);
    expect(result.error).toMatchObject({
      name: 'NetworkError',
      providerCode: 'stream_truncated',
      retryable: true,
    });
    expect(result.response.finishReason).toBe('error');
    expect(toolCallsOf(result.response)).toEqual([{ name: 'f', input: { a: 1 } }]);
    expect(result.events.find((event) => event.type === 'tool-call-end')).toMatchObject({ incomplete: true });
  });

  it('ends an open call at [DONE] and reports tool-call for a host flagged omitsFinishReason', () => {
    const start = call(0, { id: 'call_x', function: { name: 'f', arguments: '{"a":1}' } });
    const quirks = { ...openaiQuirks, omitsFinishReason: true };
    const result = feedStream([chunk({ tool_calls: [start] }), '[DONE]'], quirks);
    assertStreamInvariants(result.events);
    expect(result.error).toBeUndefined();
    expect(toolCallsOf(result.response)).toEqual([{ name: 'f', input: { a: 1 } }]);
    expect(result.response.finishReason).toBe('tool-call');
    expect(result.events.find((event) => event.type === 'tool-call-end')).not.toHaveProperty('incomplete');
  });

  it('reports tool-call when a host says stop after tool calls', () => {
    const start = call(0, { id: 'call_y', function: { name: 'f', arguments: '{}' } });
    const result = feedStream([chunk({ tool_calls: [start] }, 'stop'), '[DONE]'], openaiQuirks);
    expect(result.response.finishReason).toBe('tool-call');
    expect(result.response.rawFinishReason).toBe('stop');
  });

  it('ignores empty ids and names on continuation fragments (Qwen, GLM)', () => {
    const result = feedStream(
      [
        chunk({ tool_calls: [call(0, { id: 'call_q', function: { name: 'weather', arguments: '' } })] }),
        chunk({ tool_calls: [call(0, { id: '', function: { name: '', arguments: '{"q": 1}' } })] }),
        chunk({ tool_calls: [call(0, { id: '', function: { arguments: '' } })] }),
        chunk({}, 'tool_calls'),
      ],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response)).toEqual([{ name: 'weather', input: { q: 1 } }]);
  });

  it('stringifies arguments a host sends as an object', () => {
    const start = call(0, { id: 'call_o', function: { name: 'f', arguments: { a: [1, 2] } } });
    const result = feedStream([chunk({ tool_calls: [start] }, 'tool_calls')], openaiQuirks);
    expect(toolCallsOf(result.response)).toEqual([{ name: 'f', input: { a: [1, 2] } }]);
  });

  it('mints a unique id for a call that arrives without one', () => {
    const nameless = (name: string) => ({ function: { name, arguments: '{}' } });
    const result = feedStream(
      [chunk({ tool_calls: [nameless('a'), nameless('b')] }, 'tool_calls')],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    const ids = result.response.content.map((part) => (part.type === 'tool-call' ? part.id : ''));
    expect(new Set(ids).size).toBe(2);
  });

  it('fails invalid_stream when a call never got a name, since it can be neither run nor replayed', () => {
    const context = createTestContext({ stream: true });
    const fragment = call(0, { id: 'call_n', function: { arguments: '{"a":1}' } });
    const result = feedStream(
      [chunk({ content: 'Checking.' }), chunk({ tool_calls: [fragment] }, 'tool_calls')],
      openaiQuirks,
      context,
    );
    expect(String((result.error as Error).message)).toContain('tool call without a name');
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response)).toEqual([]);
    expect(textOf(result.response)).toBe('Checking.');
  });

  it('drops a nameless call, with a WARN, when the stream is failing already', () => {
    const context = createTestContext({ stream: true });
    const fragment = call(0, { id: 'call_n', function: { arguments: '{"a":1}' } });
    const result = feedStream([chunk({ tool_calls: [fragment] })], openaiQuirks, context);
    expect(isNetworkError(result.error)).toBe(true);
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response)).toEqual([]);
    expect(context.warnings.map((warning) => warning.message)).toContain(
      'dropped a tool call that arrived without a name',
    );
  });

  it('ignores every event after [DONE], with one WARN', () => {
    const context = createTestContext({ stream: true });
    const late = call(0, { id: 'call_l', function: { name: 'late', arguments: '{}' } });
    const result = feedStream(
      [
        chunk({ content: 'Hi' }, 'stop'),
        '[DONE]',
        chunk({ content: ' more' }),
        chunk({ tool_calls: [late] }, 'tool_calls'),
        usageChunk(usage),
      ],
      openaiQuirks,
      context,
    );
    expect(result.error).toBeUndefined();
    assertStreamInvariants(result.events);
    expect(textOf(result.response)).toBe('Hi');
    expect(toolCallsOf(result.response)).toEqual([]);
    expect(context.warnings.map((warning) => warning.message)).toEqual([
      'ignored stream data that arrived after [DONE]',
    ]);
  });

  it('drops fragments that arrive after their call ended, with one WARN', () => {
    const context = createTestContext({ stream: true });
    const result = feedStream(
      [
        chunk({ tool_calls: [call(0, { id: 'c0', function: { name: 'a', arguments: '{}' } })] }),
        chunk({ tool_calls: [call(1, { id: 'c1', function: { name: 'b', arguments: '{}' } })] }),
        chunk({ tool_calls: [call(0, { function: { arguments: ' ' } })] }),
        chunk({ tool_calls: [call(0, { function: { arguments: ' ' } })] }),
        chunk({}, 'tool_calls'),
      ],
      openaiQuirks,
      context,
    );
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response)).toHaveLength(2);
    expect(context.warnings).toHaveLength(1);
  });

  it('keeps an unparseable input as {} with the raw text in metadata', () => {
    const broken = call(0, { id: 'c', function: { name: 'f', arguments: '{"a":' } });
    const result = feedStream([chunk({ tool_calls: [broken] }, 'tool_calls')], openaiQuirks);
    const [part] = result.response.content;
    expect(part).toMatchObject({
      type: 'tool-call',
      input: {},
      metadata: { 'switchyard.raw_input': '{"a":' },
    });
  });
});

describe('stream parser: refusal and reasoning', () => {
  it('turns a refusal into a text part tagged openai.refusal and finishes content-filter', () => {
    const result = feedStream(
      [
        chunk({ role: 'assistant', refusal: '' }),
        chunk({ refusal: "I can't" }),
        chunk({ refusal: ' help.' }),
        chunk({}, 'stop'),
      ],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    expect(result.response.content).toEqual([
      { type: 'text', text: "I can't help.", metadata: { 'openai.refusal': true } },
    ]);
    expect(result.response.finishReason).toBe('content-filter');
    expect(result.response.rawFinishReason).toBe('stop');
  });

  it('reads reasoning_content into a reasoning part before the text', () => {
    const result = feedStream(
      [
        chunk({ role: 'assistant', reasoning_content: 'Think' }),
        chunk({ reasoning_content: 'ing.' }),
        chunk({ content: 'Answer' }),
        chunk({}, 'stop'),
      ],
      defaultQuirks,
    );
    assertStreamInvariants(result.events);
    expect(result.response.content).toEqual([
      { type: 'reasoning', text: 'Thinking.', provider: 'openai' },
      { type: 'text', text: 'Answer' },
    ]);
  });

  it('reads only the fields the host row names (Groq `reasoning`)', () => {
    const groq = mergeQuirks(defaultQuirks, presets.groq.quirks);
    const result = feedStream(
      [chunk({ reasoning: 'hmm', reasoning_content: 'other' }), chunk({}, 'stop')],
      groq,
    );
    expect(reasoningOf(result.response)).toBe('hmm');
  });

  it('keeps OpenRouter reasoning_details signatures and encrypted data, ignoring the duplicate `reasoning`', () => {
    const openrouter = mergeQuirks(defaultQuirks, presets.openrouter.quirks);
    const text = (value: string) => ({ type: 'reasoning.text', text: value, format: 'anthropic-claude-v1' });
    const result = feedStream(
      [
        chunk({ reasoning: 'Let me', reasoning_details: [text('Let me')] }),
        chunk({ reasoning: ' see', reasoning_details: [text(' see')] }),
        chunk({ reasoning_details: [{ type: 'reasoning.text', text: '', signature: 'sig-123' }] }),
        chunk({ content: 'Yes.' }),
        chunk({}, 'stop'),
      ],
      openrouter,
      createTestContext({ provider: 'openrouter', stream: true }),
    );
    assertStreamInvariants(result.events);
    expect(result.response.content[0]).toEqual({
      type: 'reasoning',
      text: 'Let me see',
      signature: 'sig-123',
      provider: 'openrouter',
      metadata: {
        'openrouter.reasoning_format': 'anthropic-claude-v1',
        // The stream's pieces joined into the one entry a response body would carry.
        'openrouter.reasoning_details': [
          { type: 'reasoning.text', text: 'Let me see', format: 'anthropic-claude-v1', signature: 'sig-123' },
        ],
      },
    });
    const encrypted = feedStream(
      [
        chunk({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'opaque==' }] }),
        chunk({ content: 'x' }, 'stop'),
      ],
      openrouter,
      createTestContext({ provider: 'openrouter', stream: true }),
    );
    expect(encrypted.response.content[0]).toMatchObject({ type: 'reasoning', text: '', data: 'opaque==' });
  });

  it('reads Mistral content arrays: thinking items as reasoning, text items as text', () => {
    const thinking = (text: string) => ({ type: 'thinking', thinking: [{ type: 'text', text }] });
    const result = feedStream(
      [
        chunk({ role: 'assistant', content: [thinking('2+2')] }),
        chunk({ content: [thinking(' is 4.')] }),
        chunk({ content: [{ type: 'text', text: '4' }] }),
        chunk({ content: '' }, 'stop'),
      ],
      mergeQuirks(defaultQuirks, presets.mistral.quirks),
      createTestContext({ provider: 'mistral', stream: true }),
    );
    assertStreamInvariants(result.events);
    expect(reasoningOf(result.response)).toBe('2+2 is 4.');
    expect(textOf(result.response)).toBe('4');
  });

  it('keeps an unknown content item as a provider-tagged custom part', () => {
    const reference = { type: 'reference', reference_ids: [1, 2] };
    const result = feedStream(
      [chunk({ content: [{ type: 'text', text: 'See' }, reference] }), chunk({}, 'stop')],
      defaultQuirks,
      createTestContext({ provider: 'mistral', stream: true }),
    );
    assertStreamInvariants(result.events);
    expect(result.response.content[1]).toEqual({
      type: 'custom',
      provider: 'mistral',
      kind: 'reference',
      data: reference,
    });
  });

  it('closes reasoning before text and opens a fresh part when reasoning resumes', () => {
    const result = feedStream(
      [
        chunk({ reasoning_content: 'a' }),
        chunk({ content: 'b' }),
        chunk({ reasoning_content: 'c' }),
        chunk({}, 'stop'),
      ],
      defaultQuirks,
    );
    assertStreamInvariants(result.events);
    expect(result.response.content.map((part) => part.type)).toEqual(['reasoning', 'text', 'reasoning']);
  });
});

describe('stream parser: in-band errors', () => {
  it('fails with the classified error of a `data: {"error": …}` event and keeps the content', () => {
    const error = JSON.stringify({
      error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
    });
    const result = feedStream([chunk({ content: 'partial' }), error], openaiQuirks);
    expect(isRateLimitError(result.error)).toBe(true);
    assertStreamInvariants(result.events);
    expect(result.response.finishReason).toBe('error');
    expect(textOf(result.response)).toBe('partial');
  });

  it('classifies an `event: error` event by its code', () => {
    const data = JSON.stringify({ message: 'The server had an error', type: 'server_error', code: null });
    const result = feedStream([chunk({ content: 'x' }), { event: 'error', data }], openaiQuirks);
    expect(isServerError(result.error)).toBe(true);
    expect(result.error).toMatchObject({ providerCode: 'server_error', retryable: true });
  });

  it('maps an OpenRouter mid-stream error (numeric code = HTTP status) by its code', () => {
    const data = JSON.stringify({
      ...base,
      error: { code: 502, message: 'Provider disconnected' },
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
    });
    const result = feedStream([chunk({ content: 'x' }), data], openaiQuirks);
    expect(isServerError(result.error)).toBe(true);
    expect(result.error).toMatchObject({ status: 502 });
  });

  it('ignores `error: null` fields', () => {
    const result = feedStream([chunk({ content: 'ok' }, 'stop', { error: null })], openaiQuirks);
    expect(result.error).toBeUndefined();
  });

  it.each([
    ['a bare string', '"boom"', 'boom'],
    ['a number', '42', '42'],
    ['null', 'null', 'null'],
  ])('fails an `event: error` whose payload is %s with a provider error carrying it', (_, data, text) => {
    const result = feedStream([chunk({ content: 'x' }), { event: 'error', data }], openaiQuirks);
    expect(isServerError(result.error)).toBe(true);
    expect(isNetworkError(result.error)).toBe(false);
    expect((result.error as Error).message).toContain(text);
    assertStreamInvariants(result.events);
    expect(textOf(result.response)).toBe('x');
  });
});

describe('stream parser: malformed chunks', () => {
  it('skips data that is not a JSON object (42, null, a string, an array) with one WARN', () => {
    const context = createTestContext({ stream: true });
    const result = feedStream(
      ['42', 'null', '"text"', '[1]', chunk({ content: 'ok' }, 'stop'), '[DONE]'],
      openaiQuirks,
      context,
    );
    expect(result.error).toBeUndefined();
    assertStreamInvariants(result.events);
    expect(textOf(result.response)).toBe('ok');
    expect(context.warnings).toEqual([
      {
        message: 'skipped a stream event whose data is not a JSON object',
        fields: { event: undefined, dataType: 'number' },
      },
    ]);
  });

  it('reads Moonshot usage carried inside the final choice', () => {
    const moonshot = mergeQuirks(defaultQuirks, presets.moonshot.quirks);
    const final = JSON.stringify({
      ...base,
      choices: [
        {
          index: 0,
          delta: {},
          finish_reason: 'stop',
          usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, cached_tokens: 80 },
        },
      ],
    });
    const result = feedStream(
      [chunk({ content: 'ok' }), final, '[DONE]'],
      moonshot,
      createTestContext({ provider: 'moonshot', stream: true }),
    );
    expect(result.response.usage).toMatchObject({ input: 20, cacheRead: 80, output: 5 });
  });

  it('never crashes on null choices, choice, delta, tool_calls, content or usage', () => {
    const nulls = (fields: object) => JSON.stringify({ ...base, ...fields });
    const result = feedStream(
      [
        nulls({ choices: null, usage: null }),
        nulls({ choices: [null], x_groq: null }),
        nulls({ choices: [{ index: 0, delta: null, finish_reason: null }] }),
        chunk({ content: null, tool_calls: null, refusal: null, reasoning_content: null }),
        chunk({ tool_calls: [null] }),
        chunk({ content: [null], reasoning_details: [null], function_call: null }),
        chunk({ content: 'ok' }, null, { usage: null }),
        chunk({}, 'stop', { usage: null }),
        '[DONE]',
      ],
      openaiQuirks,
    );
    expect(result.error).toBeUndefined();
    assertStreamInvariants(result.events);
    expect(textOf(result.response)).toBe('ok');
    expect(result.response.finishReason).toBe('completed');
  });
});
