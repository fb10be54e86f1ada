import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isNetworkError, isRateLimitError, isServerError } from '../../core/errors/guards.ts';
import type { StreamEvent } from '../../core/events.ts';
import { userText } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { maxIndexGap, PartialArguments, parseJsonPath } from './partial-arguments.ts';
import { buildRequest } from './request.ts';
import {
  collect,
  emulatedGemini,
  finishOf,
  parseBody,
  parseChunks,
  simpleRequest,
  testContext,
  toolDeltas,
} from './test-support.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const modelParts = (parts: object[], extra: object = {}) => ({
  candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
});
const stop = (parts: object[] = [{ text: '' }], usage?: object) => ({
  ...modelParts(parts, { finishReason: 'STOP' }),
  ...(usage === undefined ? {} : { usageMetadata: usage }),
});

describe('stream parser', () => {
  it('thought pieces merge into one reasoning part whose end carries the signature', () => {
    const events = parseChunks([
      modelParts([{ text: 'Let me ', thought: true }]),
      modelParts([{ text: 'think.', thought: true, thoughtSignature: 'U0lH' }]),
      modelParts([{ text: 'Answer.' }]),
      stop(),
    ]);
    assertStreamInvariants(events);
    expect(events.find((event) => event.type === 'reasoning-end')).toMatchObject({ signature: 'U0lH' });
    expect(finishOf(events).content).toEqual([
      { type: 'reasoning', text: 'Let me think.', signature: 'U0lH', provider: 'gemini' },
      { type: 'text', text: 'Answer.' },
    ]);
  });

  it('a signed text part followed by unsigned text stays one canonical text part and replays to Gemini with the signature in place', () => {
    const context = testContext();
    const events = parseChunks(
      [
        modelParts([{ text: 'Hello', thoughtSignature: 'S1' }]),
        modelParts([{ text: ' wor' }, { text: 'ld' }]),
        stop([{ text: '' }]),
      ],
      context,
    );
    assertStreamInvariants(events);
    expect(events.filter((event) => event.type === 'text-start')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'text-end')).toHaveLength(1);
    const content = finishOf(events).content;
    expect(content).toEqual([
      {
        type: 'text',
        text: 'Hello world',
        metadata: { 'gemini.thoughtSignature': 'S1', 'gemini.thoughtSignatureOffset': 5 },
      },
    ]);
    // The same wire parts in one body (2.5 signs the first part) read the same.
    const body = parseBody({
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'Hello', thoughtSignature: 'S1' }, { text: ' world' }] },
          finishReason: 'STOP',
        },
      ],
    });
    expect(body.content).toEqual(content);
    const wire = buildRequest(
      {
        model: 'gemini:gemini-2.5-flash',
        maxOutputTokens: 10,
        transcript: [userText('Hi'), { kind: 'assistant', parts: content }, userText('Again')],
      },
      context,
      { useJsonSchema: false },
    );
    expect((wire.body as { contents: unknown[] }).contents[1]).toEqual({
      role: 'model',
      parts: [{ text: 'Hello', thoughtSignature: 'S1' }, { text: ' world' }],
    });
  });

  it('a signature on the last text part signs the whole text, with no offset', () => {
    const events = parseChunks([
      modelParts([{ text: 'one' }]),
      modelParts([{ text: 'two', thoughtSignature: 'QQ==' }]),
      stop(),
    ]);
    assertStreamInvariants(events);
    expect(finishOf(events).content).toEqual([
      { type: 'text', text: 'onetwo', metadata: { 'gemini.thoughtSignature': 'QQ==' } },
    ]);
  });

  it('a second signature in one text starts a new text part, each replayed with its own signature', () => {
    const context = testContext();
    const events = parseChunks(
      [
        modelParts([{ text: 'a', thoughtSignature: 'S1' }, { text: 'b' }]),
        modelParts([{ text: 'c', thoughtSignature: 'S2' }, { text: 'd' }]),
        stop(),
      ],
      context,
    );
    assertStreamInvariants(events);
    const content = finishOf(events).content;
    expect(content).toEqual([
      {
        type: 'text',
        text: 'ab',
        metadata: { 'gemini.thoughtSignature': 'S1', 'gemini.thoughtSignatureOffset': 1 },
      },
      {
        type: 'text',
        text: 'cd',
        metadata: { 'gemini.thoughtSignature': 'S2', 'gemini.thoughtSignatureOffset': 1 },
      },
    ]);
    const wire = buildRequest(
      {
        model: 'gemini:gemini-2.5-flash',
        maxOutputTokens: 10,
        transcript: [userText('Hi'), { kind: 'assistant', parts: content }],
      },
      context,
      { useJsonSchema: false },
    );
    expect((wire.body as { contents: Array<{ parts: unknown }> }).contents[1]?.parts).toEqual([
      { text: 'a', thoughtSignature: 'S1' },
      { text: 'b' },
      { text: 'c', thoughtSignature: 'S2' },
      { text: 'd' },
    ]);
  });

  it('a lone signature part after a function call is kept as empty signed text', () => {
    const events = parseChunks([
      modelParts([{ functionCall: { name: 'f', args: {} } }]),
      stop([{ text: '', thoughtSignature: 'Qg==' }]),
    ]);
    assertStreamInvariants(events);
    expect(finishOf(events).content[1]).toEqual({
      type: 'text',
      text: '',
      metadata: { 'gemini.thoughtSignature': 'Qg==' },
    });
  });

  it('Gemini function-call ids become canonical ids recorded in the session map', () => {
    const context = testContext();
    const events = parseChunks(
      [stop([{ functionCall: { id: 'fc-1', name: 'f', args: { a: 1 } } }])],
      context,
    );
    const [call] = finishOf(events).content;
    expect(call).toMatchObject({ type: 'tool-call', name: 'f', input: { a: 1 } });
    const id = call?.type === 'tool-call' ? call.id : '';
    expect(id).toMatch(/^tu_/);
    expect(context.session.toolIds.toProvider('gemini', id)).toBe('fc-1');
  });

  it('calls without a Gemini id get a generated provider id, sent on the call and on its response alike', () => {
    const context = testContext();
    const events = parseChunks([stop([{ functionCall: { name: 'f', args: {} } }])], context);
    const call = finishOf(events).content[0];
    if (call?.type !== 'tool-call') throw new Error('expected a call');
    const generated = context.session.toolIds.toProvider('gemini', call.id);
    expect(generated).toMatch(/^gemini-call-/);
    const wire = buildRequest(
      {
        model: 'gemini:gemini-2.5-flash',
        maxOutputTokens: 10,
        transcript: [
          userText('x'),
          { kind: 'assistant', parts: [call] },
          {
            kind: 'tool',
            parts: [
              { type: 'tool-result', callId: call.id, output: { type: 'text', text: 'ok' }, isError: false },
            ],
          },
        ],
      },
      context,
      { useJsonSchema: false },
    );
    const contents = wire.body.contents as Array<{ parts: object[] }>;
    expect(contents[1]?.parts[0]).toEqual({ functionCall: { name: 'f', args: {}, id: generated } });
    expect(contents[2]?.parts[0]).toEqual({
      functionResponse: { name: 'f', response: { output: 'ok' }, id: generated },
    });
  });

  it('code execution parts and unknown parts are kept whole as custom parts, grounding as metadata', () => {
    const grounding = { webSearchQueries: ['weather paris'], groundingChunks: [] };
    const events = parseChunks([
      modelParts([{ executableCode: { language: 'PYTHON', code: 'print(1)' } }]),
      modelParts([{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1\n' } }]),
      modelParts([{ futurePart: { x: 1 }, thoughtSignature: 'Wg==' }]),
      {
        ...stop([{ text: 'Done.' }]),
        candidates: [{ ...stop().candidates[0], groundingMetadata: grounding }],
      },
    ]);
    assertStreamInvariants(events);
    const response = finishOf(events);
    expect(response.content.slice(0, 3)).toEqual([
      {
        type: 'custom',
        provider: 'gemini',
        kind: 'executableCode',
        data: { executableCode: { language: 'PYTHON', code: 'print(1)' } },
      },
      {
        type: 'custom',
        provider: 'gemini',
        kind: 'codeExecutionResult',
        data: { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1\n' } },
      },
      {
        type: 'custom',
        provider: 'gemini',
        kind: 'futurePart',
        data: { futurePart: { x: 1 }, thoughtSignature: 'Wg==' },
      },
    ]);
    expect(response.metadata?.['gemini.groundingMetadata']).toEqual(grounding);
    // Sent back verbatim to Gemini.
    const wire = buildRequest(
      {
        model: 'gemini:gemini-2.5-flash',
        maxOutputTokens: 10,
        transcript: [userText('x'), { kind: 'assistant', parts: response.content }],
      },
      testContext(),
      { useJsonSchema: false },
    );
    expect((wire.body.contents as Array<{ parts: object[] }>)[1]?.parts.slice(0, 3)).toEqual([
      { executableCode: { language: 'PYTHON', code: 'print(1)' } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1\n' } },
      { futurePart: { x: 1 }, thoughtSignature: 'Wg==' },
    ]);
  });

  it('usage: cached tokens leave the input bucket, tool-use prompt tokens join it, thoughts join output', () => {
    const events = parseChunks([
      stop([{ text: 'ok' }], {
        promptTokenCount: 1000,
        cachedContentTokenCount: 800,
        toolUsePromptTokenCount: 50,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 30,
        totalTokenCount: 1100,
      }),
    ]);
    expect(finishOf(events).usage).toEqual({
      input: 250,
      cacheRead: 800,
      cacheWrite: 0,
      output: 50,
      reasoning: 30,
      toolUsePrompt: 50,
    });
  });

  it('a candidate of another index is never merged into the first, wherever it is in the list', () => {
    const second = (text: string) => ({ content: { role: 'model', parts: [{ text }] }, index: 1 });
    const context = testContext();
    const events = parseChunks(
      [
        modelParts([{ text: 'One ' }]),
        { candidates: [second('Two ')] },
        {
          candidates: [
            second('Three '),
            { content: { role: 'model', parts: [{ text: 'answer.' }] }, index: 0 },
          ],
        },
        stop(),
      ],
      context,
    );
    assertStreamInvariants(events);
    expect(finishOf(events).content).toEqual([{ type: 'text', text: 'One answer.' }]);
    const warned = context.logger.entries.filter((entry) => entry.message.includes('candidates other than'));
    expect(warned).toHaveLength(1);
  });

  it('repeated identical usage metadata emits one usage event', () => {
    const usage = { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6 };
    const events = parseChunks([
      { ...modelParts([{ text: 'a' }]), usageMetadata: usage },
      { ...modelParts([{ text: 'b' }]), usageMetadata: usage },
      stop([{ text: '' }], usage),
    ]);
    expect(events.filter((event) => event.type === 'usage')).toHaveLength(1);
  });

  it('at most one JSON.parse per SSE event: none for a text chunk of the wire shape after the first', () => {
    const chunks = [modelParts([{ text: 'a' }]), modelParts([{ text: 'b' }]), stop()];
    const spy = vi.spyOn(JSON, 'parse');
    try {
      parseChunks(chunks);
      // The first chunk starts the message and the last finishes it (parsed); the middle one is scanned.
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });

  it('streamed arguments that arrive out of order keep an exact input and stop the deltas, with a WARN', () => {
    const context = testContext();
    const partial = (jsonPath: string, value: object) =>
      modelParts([{ functionCall: { partialArgs: [{ jsonPath, ...value }], willContinue: true } }]);
    const events = parseChunks(
      [
        modelParts([{ functionCall: { name: 'f', willContinue: true } }]),
        partial('$.a.x', { numberValue: 1 }),
        partial('$.b', { boolValue: true }),
        partial('$.a.y', { nullValue: null }),
        modelParts([{ functionCall: {} }]),
        stop(),
      ],
      context,
    );
    assertStreamInvariants(events);
    expect(finishOf(events).content[0]).toMatchObject({ input: { a: { x: 1, y: null }, b: true } });
    expect(context.logger.entries[0]?.message).toBe('streamed function-call arguments arrived out of order');
  });

  it('streamed arguments at __proto__ paths never touch a prototype; the key is removed and the arguments kept raw', () => {
    const partial = (jsonPath: string, value: object) =>
      modelParts([{ functionCall: { partialArgs: [{ jsonPath, ...value }], willContinue: true } }]);
    const events = parseChunks([
      modelParts([{ functionCall: { name: 'f', willContinue: true } }]),
      partial('$.__proto__.polluted', { stringValue: 'yes' }),
      partial("$['constructor']['prototype'].polluted", { stringValue: 'yes' }),
      partial('$.city', { stringValue: 'Paris' }),
      modelParts([{ functionCall: {} }]),
      stop(),
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    assertStreamInvariants(events);
    const call = finishOf(events).content[0] as {
      input: Record<string, unknown>;
      metadata?: Record<string, unknown>;
    };
    expect(Object.hasOwn(call.input, '__proto__')).toBe(false);
    expect(Object.getPrototypeOf(call.input)).toBe(Object.prototype);
    expect(call.input).toMatchObject({ city: 'Paris', constructor: { prototype: { polluted: 'yes' } } });
    expect(call).toMatchObject({ incomplete: true });
    expect(call.metadata?.['switchyard.raw_input']).toContain('"__proto__":{"polluted":"yes"}');
  });

  it('JSON paths: dots, indices and quoted keys', () => {
    expect(parseJsonPath('$.a.b[2].c')).toEqual(['a', 'b', 2, 'c']);
    expect(parseJsonPath("$['key with space'][0]")).toEqual(['key with space', 0]);
    expect(parseJsonPath("$['it\\'s'][\"a\\\\b\"]")).toEqual(["it's", 'a\\b']);
    expect(parseJsonPath('a.b')).toBeUndefined();
    expect(parseJsonPath('$')).toBeUndefined();
  });
});

describe('streamed function-call arguments (partialArgs)', () => {
  const start = modelParts([{ functionCall: { name: 'f', willContinue: true } }]);
  const partial = (...partialArgs: unknown[]) =>
    modelParts([{ functionCall: { partialArgs, willContinue: true } }]);
  const end = modelParts([{ functionCall: {} }]);
  const thrownBy = (run: () => unknown): unknown => {
    try {
      run();
    } catch (error) {
      return error;
    }
    throw new Error('expected a throw');
  };

  it.each([
    ['null', null],
    ['a number', 5],
    ['an object without a jsonPath', { stringValue: 'x' }],
    ['an object with a numeric jsonPath', { jsonPath: 5, stringValue: 'x' }],
  ])(
    'a partialArgs entry that is %s is a retryable ServerError invalid_stream, not a TypeError',
    (_, entry) => {
      const error = thrownBy(() => parseChunks([start, partial(entry), end, stop()]));
      expect(isServerError(error)).toBe(true);
      expect(error).toMatchObject({
        providerCode: 'invalid_stream',
        retryable: true,
        requestId: 'req_test',
        message:
          'gemini: the stream of gemini-2.5-flash sent a partialArgs entry that is not an object with a string jsonPath',
      });
    },
  );

  it('partialArgs that are not an array are a retryable ServerError invalid_stream', () => {
    const chunk = modelParts([
      { functionCall: { partialArgs: { jsonPath: '$.a', stringValue: 'x' }, willContinue: true } },
    ]);
    expect(thrownBy(() => parseChunks([start, chunk, end, stop()]))).toMatchObject({
      providerCode: 'invalid_stream',
      retryable: true,
    });
  });

  it('an array index far past the end is a non-retryable ServerError invalid_stream, without padding', () => {
    const before = performance.now();
    const error = thrownBy(() =>
      parseChunks([start, partial({ jsonPath: '$.rows[20000000]', stringValue: 'x' }), end, stop()]),
    );
    expect(performance.now() - before).toBeLessThan(1000);
    expect(isServerError(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'invalid_stream', retryable: false, requestId: 'req_test' });
    expect((error as Error).message).toContain('$.rows[20000000], index 20000000 of an array of length 0');
    // The same for a container index (the `{}` at the index would be padded too) and past a filled array.
    const args = new PartialArguments({ model: 'm' });
    expect(args.apply({ jsonPath: '$.rows[0]', numberValue: 1 })).toBe('{"rows":[1');
    expect(() => args.apply({ jsonPath: `$.rows[${maxIndexGap + 2}].name`, stringValue: 'x' })).toThrow(
      /index 1002 of an array of length 1/,
    );
  });

  it('an index up to the gap limit past the end is padded with nulls in the text and the input alike', () => {
    const events = parseChunks([
      start,
      partial({ jsonPath: '$.rows[0]', numberValue: 1 }),
      partial({ jsonPath: `$.rows[${maxIndexGap + 1}]`, stringValue: 'x' }),
      end,
      stop(),
    ]);
    assertStreamInvariants(events);
    const rows = [1, ...Array.from({ length: maxIndexGap }, () => null), 'x'];
    expect(finishOf(events).content[0]).toMatchObject({ input: { rows } });
    expect(JSON.parse([...toolDeltas(events).values()][0] ?? '')).toEqual({ rows });
  });

  it('string pieces on one path, escaped keys and characters that need escaping stream exactly', () => {
    const pieces = ['say "hi"\\', '\n\u0001 tab\t', '😀 plain', '\ud83d', '\ude00 end', ''];
    const events = parseChunks([
      start,
      partial({ jsonPath: "$['a \\'b']", numberValue: 1 }),
      ...pieces.map((stringValue, index) =>
        partial({ jsonPath: '$.list[0].text', stringValue, willContinue: index < pieces.length - 1 }),
      ),
      partial({ jsonPath: '$.list[1].text', stringValue: 'next', willContinue: true }),
      partial({ jsonPath: '$.list[1].text', stringValue: '' }),
      end,
      stop(),
    ]);
    assertStreamInvariants(events);
    const input = { "a 'b": 1, list: [{ text: pieces.join('') }, { text: 'next' }] };
    expect(finishOf(events).content[0]).toMatchObject({ input });
    const text = [...toolDeltas(events).values()][0] ?? '';
    expect(JSON.parse(text)).toEqual(input);
    // Each piece is escaped on its own: the lone halves of the split emoji arrive as \u escapes.
    expect(text).toContain('😀 plain\\ud83d\\ude00 end');
  });

  it('usage is emitted again only when the converted counts change', () => {
    const usage = (
      promptTokenCount: number,
      toolUsePromptTokenCount: number,
      candidatesTokenCount: number,
    ) => ({
      promptTokenCount,
      toolUsePromptTokenCount,
      candidatesTokenCount,
    });
    const events = parseChunks([
      { ...modelParts([{ text: 'a' }]), usageMetadata: usage(10, 0, 1) },
      // Different raw counts, same converted usage (input 10, output 1): no new event.
      { ...modelParts([{ text: 'b' }]), usageMetadata: usage(5, 5, 1) },
      { ...modelParts([{ text: 'c' }]), usageMetadata: usage(5, 5, 2) },
      stop([{ text: '' }], usage(5, 5, 2)),
    ]);
    expect(events.flatMap((event) => (event.type === 'usage' ? [event.usage.output] : []))).toEqual([1, 2]);
  });
});

describe('stream endings and failures over the emulator', () => {
  it('a stream that ends without a finishReason fails with a retryable NetworkError, keeping the text', async () => {
    emulator.enqueue({ type: 'sse', events: [{ data: modelParts([{ text: 'partial answer' }]) }] });
    const { adapter } = emulatedGemini(emulator);
    const { events, error } = await collect(adapter.stream(simpleRequest()));
    expect(isNetworkError(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'stream_truncated', retryable: true });
    assertStreamInvariants(events);
    expect(finishOf(events)).toMatchObject({
      finishReason: 'error',
      content: [{ type: 'text', text: 'partial answer' }],
    });
  });

  it('a stream cut inside streamed arguments keeps the arguments received, marked incomplete', async () => {
    const partial = (jsonPath: string, value: object) =>
      modelParts([{ functionCall: { partialArgs: [{ jsonPath, ...value }], willContinue: true } }]);
    emulator.enqueue({
      type: 'sse',
      events: [
        { data: modelParts([{ functionCall: { name: 'lookup', willContinue: true } }]) },
        { data: partial('$.city', { stringValue: 'Par', willContinue: true }) },
        { data: partial('$.city', { stringValue: 'is' }) },
        { data: partial('$.days[0]', { numberValue: 3 }) },
      ],
    });
    const { adapter } = emulatedGemini(emulator);
    const { events, error } = await collect(adapter.stream(simpleRequest()));
    expect(error).toMatchObject({ providerCode: 'stream_truncated', retryable: true });
    assertStreamInvariants(events);
    const end = events.find((event) => event.type === 'tool-call-end');
    expect(end).toMatchObject({ input: { city: 'Paris', days: [3] }, incomplete: true });
    expect(finishOf(events)).toMatchObject({
      finishReason: 'error',
      content: [{ type: 'tool-call', name: 'lookup', input: { city: 'Paris', days: [3] }, incomplete: true }],
    });
  });

  it('a stream cut before any content is retried', async () => {
    emulator.enqueue({ type: 'sse', events: [{ data: { usageMetadata: { trafficType: 'ON_DEMAND' } } }] });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'second try' }] });
    const { adapter } = emulatedGemini(emulator, { maxRetries: 1 });
    const before = emulator.requests.length;
    const { events, error } = await collect(adapter.stream(simpleRequest()));
    expect(error).toBeUndefined();
    assertStreamInvariants(events);
    expect(finishOf(events).content).toEqual([{ type: 'text', text: 'second try' }]);
    expect(emulator.requests.length - before).toBe(2);
  });

  it('an error chunk mid-stream raises the classified error after a finish with reason error', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        { data: modelParts([{ text: 'Hel' }]) },
        { data: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded' } } },
      ],
    });
    const { adapter } = emulatedGemini(emulator);
    const { events, error } = await collect(adapter.stream(simpleRequest()));
    expect(isRateLimitError(error)).toBe(true);
    assertStreamInvariants(events);
    expect(finishOf(events)).toMatchObject({
      finishReason: 'error',
      content: [{ type: 'text', text: 'Hel' }],
    });
  });

  it('malformed JSON in the stream is a ServerError invalid_stream', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'hello world' }],
      fault: { malformedAtEvent: 2 },
    });
    const { adapter } = emulatedGemini(emulator);
    const { events, error } = await collect(adapter.stream(simpleRequest()));
    expect(isServerError(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'invalid_stream' });
    assertStreamInvariants(events);
  });

  it('unicode split across chunks at every byte arrives intact', async () => {
    const text = 'Grüße 👋🏽 — 日本語テキスト';
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text }],
      fault: { splitBytes: 'every-byte' },
    });
    const { adapter } = emulatedGemini(emulator);
    const { events, error } = await collect(adapter.stream(simpleRequest()));
    expect(error).toBeUndefined();
    assertStreamInvariants(events);
    expect(finishOf(events).content).toEqual([{ type: 'text', text }]);
  });

  it('aborting the signal mid-stream ends the iterator with finish reason cancelled and the text so far', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [{ data: modelParts([{ text: 'Once upon' }]) }, { data: modelParts([{ text: ' a time' }]) }],
      fault: { stallAfterEvents: 2 },
    });
    const { adapter } = emulatedGemini(emulator);
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const event of adapter.stream(simpleRequest(), { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text-delta' && event.delta === ' a time') controller.abort();
    }
    assertStreamInvariants(events);
    expect(finishOf(events)).toMatchObject({
      finishReason: 'cancelled',
      content: [{ type: 'text', text: 'Once upon a time' }],
    });
  });

  it('a blocked prompt is finish reason content-filter with the reason in metadata, not an exception', async () => {
    const blocked = {
      promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
      usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 },
    };
    emulator.enqueue({ type: 'sse', events: [{ data: blocked }] });
    emulator.enqueue({ type: 'json', body: blocked });
    const { adapter } = emulatedGemini(emulator);
    const { events, error } = await collect(adapter.stream(simpleRequest()));
    expect(error).toBeUndefined();
    assertStreamInvariants(events);
    const streamed = finishOf(events);
    expect(streamed).toMatchObject({ finishReason: 'content-filter', rawFinishReason: 'PROHIBITED_CONTENT' });
    expect(streamed.metadata?.['gemini.blockReason']).toBe('PROHIBITED_CONTENT');
    const completed = await adapter.complete(simpleRequest());
    expect(completed).toMatchObject({ finishReason: 'content-filter', content: [] });
    expect(completed.usage.input).toBe(12);
  });

  it('a streaming request answered with one JSON array is read chunk by chunk', async () => {
    emulator.enqueue({ type: 'json', body: [modelParts([{ text: 'a' }]), stop([{ text: 'b' }])] });
    const { adapter } = emulatedGemini(emulator);
    const { events, error } = await collect(adapter.stream(simpleRequest()));
    expect(error).toBeUndefined();
    expect(finishOf(events).content).toEqual([{ type: 'text', text: 'ab' }]);
  });
});
