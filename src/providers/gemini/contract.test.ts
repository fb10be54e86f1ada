import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecorded, readRecorded } from '../../../test/support/fixtures.ts';
import { createSession } from '../../core/adapter.ts';
import type { CapabilityName } from '../../core/capabilities.ts';
import type { ErrorClass } from '../../core/errors/error-class.ts';
import type { StreamEvent } from '../../core/events.ts';
import { toolCallId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { type Item, systemText, userText } from '../../core/transcript.ts';
import {
  type Emulator,
  googleError,
  type ScriptedScript,
  startEmulator,
} from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { providerToolId } from '../common/projection.ts';
import { buildRequest } from './request.ts';
import {
  collect,
  emulatedGemini,
  finishOf,
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

const recorded = (name: string) => listRecorded('google').find((path) => path.endsWith(`/${name}`)) as string;

function wireOf(request: Partial<CanonicalRequest>, context = testContext()) {
  return buildRequest(
    { model: 'gemini:gemini-2.5-flash', transcript: [userText('x')], maxOutputTokens: 64, ...request },
    context,
    { useJsonSchema: false },
  ).body;
}

async function errorOf(script: Parameters<Emulator['enqueue']>[0]): Promise<{ errorClass: ErrorClass }> {
  emulator.enqueue(script);
  const { adapter } = emulatedGemini(emulator);
  return adapter.complete(simpleRequest()).then(
    () => ({ errorClass: 'other' as ErrorClass, unexpected: true }),
    (error: { errorClass: ErrorClass }) => error,
  );
}

describe('per-adapter tests (docs/contract.md §10.1)', () => {
  it('1. round-trip canonical → wire → canonical', async () => {
    const session = createSession();
    const { adapter } = emulatedGemini(emulator);
    const transcript: Item[] = [systemText('Answer with tools.'), userText('Weather in San Francisco?')];
    emulator.enqueue({ type: 'replay', file: recorded('google-tool-call-gemini3.json') });
    const response = await adapter.complete(
      { model: 'gemini:gemini-3-pro-preview', transcript, maxOutputTokens: 256 },
      { session },
    );
    expect(emulator.requests.at(-1)?.body).toMatchInlineSnapshot(`
      {
        "contents": [
          {
            "parts": [
              {
                "text": "Weather in San Francisco?",
              },
            ],
            "role": "user",
          },
        ],
        "generationConfig": {
          "maxOutputTokens": 256,
        },
        "systemInstruction": {
          "parts": [
            {
              "text": "Answer with tools.",
            },
          ],
        },
      }
    `);
    expect(response).toMatchInlineSnapshot(
      {
        requestId: expect.any(String),
        latencyMs: expect.any(Number),
        content: [{ id: expect.stringMatching(/^tu_/) }],
      },
      `
      {
        "content": [
          {
            "id": StringMatching /\\^tu_/,
            "input": {
              "location": "San Francisco",
            },
            "name": "weather",
            "provider": "gemini",
            "signature": "Eqo+Cqc+Ab4+9vtgONaaz6qwy6WXdp7gCd2w0X+Wz2gaBgY0Gv6A12JKo0y5vQwf9YQFyhMbKr1E9m17VT6HXd7jXzjaGYaE",
            "type": "tool-call",
          },
        ],
        "finishReason": "tool-call",
        "latencyMs": Any<Number>,
        "metadata": {
          "gemini.finishMessage": "Model generated function call(s).",
        },
        "model": "gemini:gemini-3-pro-preview",
        "provider": "gemini",
        "rawFinishReason": "STOP",
        "requestId": Any<String>,
        "responseId": "JniLacKqGqH0xs0P0O776As",
        "usage": {
          "cacheRead": 0,
          "cacheWrite": 0,
          "input": 29,
          "output": 1816,
          "reasoning": 1801,
        },
      }
    `,
    );
    // Back to the wire: the model turn is the recorded candidate content.
    const recordedContent = JSON.parse(readRecorded(recorded('google-tool-call-gemini3.json'))).candidates[0]
      .content;
    const next = wireOf(
      {
        model: 'gemini:gemini-3-pro-preview',
        transcript: [...transcript, { kind: 'assistant', parts: response.content }],
      },
      testContext({ model: 'gemini-3-pro-preview', session }),
    );
    // The call goes back exactly as recorded, plus the id the adapter generated for it (Gemini sent none).
    const [recordedPart] = recordedContent.parts;
    expect((next.contents as unknown[])[1]).toEqual({
      ...recordedContent,
      parts: [
        {
          ...recordedPart,
          functionCall: { ...recordedPart.functionCall, id: expect.stringMatching(/^gemini-call-/) },
        },
      ],
    });
  });

  it('2. tool call serialization', async () => {
    const input: JsonObject = {
      text: 'naïve — "quoted" \\ ✓',
      integer: 42,
      negative: -7,
      float: 3.25,
      yes: true,
      no: false,
      nothing: null,
      list: [1, 'two', { three: [3] }, []],
      nested: { deep: { deeper: { deepest: 'value' } }, empty: {} },
    };
    const wire = wireOf({
      transcript: [
        userText('x'),
        { kind: 'assistant', parts: [{ type: 'tool-call', id: toolCallId('tu_1'), name: 'f', input }] },
      ],
    });
    expect(
      (wire.contents as Array<{ parts: Array<{ functionCall: { args: unknown } }> }>)[1]?.parts[0]
        ?.functionCall.args,
    ).toEqual(input);
    for (const stream of [false, true]) {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'tool-call', name: 'f', input }] });
      const { adapter } = emulatedGemini(emulator);
      const response = stream
        ? finishOf((await collect(adapter.stream(simpleRequest()))).events)
        : await adapter.complete(simpleRequest());
      expect(response.content).toEqual([expect.objectContaining({ type: 'tool-call', name: 'f', input })]);
    }
  });

  it('3. tool id round-trip', () => {
    const context = testContext();
    const body = {
      candidates: [
        {
          content: { role: 'model', parts: [{ functionCall: { id: 'fc-77', name: 'f', args: {} } }] },
          finishReason: 'STOP',
        },
      ],
    };
    const events = parseChunks([body], context);
    const call = finishOf(events).content[0];
    if (call?.type !== 'tool-call') throw new Error('expected a tool call');
    expect(call.id).toMatch(/^tu_/);
    expect(providerToolId(context, call.id)).toBe('fc-77');
    const wire = wireOf(
      {
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
    );
    const contents = wire.contents as Array<{ parts: Array<Record<string, { id?: string }>> }>;
    expect(contents[1]?.parts[0]?.functionCall?.id).toBe('fc-77');
    expect(contents[2]?.parts[0]?.functionResponse?.id).toBe('fc-77');
    expect(context.session.toolIds.toProvider('gemini', call.id)).toBe('fc-77');
    // A canonical id minted elsewhere keeps a stable provider id for the session.
    expect(providerToolId(context, 'tu_foreign')).toBe(providerToolId(context, 'tu_foreign'));
    expect(providerToolId(context, 'tu_foreign')).toBe('tu_foreign');
  });

  it('4. system prompt placement', () => {
    expect(wireOf({ transcript: [userText('x')] })).not.toHaveProperty('systemInstruction');
    expect(wireOf({ transcript: [systemText(''), userText('x')] })).not.toHaveProperty('systemInstruction');
    expect(wireOf({ transcript: [systemText('One.'), userText('x')] }).systemInstruction).toEqual({
      parts: [{ text: 'One.' }],
    });
    const many = wireOf({
      transcript: [
        systemText('System.'),
        { kind: 'developer', parts: [{ type: 'text', text: 'Developer.' }] },
        userText('x'),
        { kind: 'context', parts: [{ type: 'text', text: 'Context.' }] },
      ],
    });
    expect(many.systemInstruction).toEqual({ parts: [{ text: 'System.\n\nDeveloper.\n\nContext.' }] });
    expect(many.contents).toEqual([{ role: 'user', parts: [{ text: 'x' }] }]);
  });

  it('5. capability declaration honesty', async () => {
    const { adapter } = emulatedGemini(emulator);
    const before = emulator.requests.length;
    const audio = {
      type: 'media',
      modality: 'audio',
      mimeType: 'audio/wav',
      data: { type: 'base64', data: 'AA==' },
    } as const;
    const video = {
      type: 'media',
      modality: 'video',
      mimeType: 'video/mp4',
      data: { type: 'uri', uri: 'gs://b/v.mp4' },
    } as const;
    const refused: Array<[CapabilityName, string, Partial<CanonicalRequest>]> = [
      ['reasoning', 'gemini-2.0-flash', { reasoning: { effort: 'high' } }],
      ['tools', 'gemini-2.5-flash-image', { tools: [{ name: 'f', inputSchema: { type: 'object' } }] }],
      ['parallelToolCalls', 'gemini-2.5-flash-image', { parallelToolCalls: true }],
      ['structuredOutput', 'gemini-2.5-flash-image', { outputSchema: { schema: { type: 'object' } } }],
      ['audio', 'gemini-2.5-flash-image', { transcript: [{ kind: 'user', parts: [audio] }] }],
      ['video', 'gemini-2.5-flash-image', { transcript: [{ kind: 'user', parts: [video] }] }],
    ];
    for (const [flag, model, extra] of refused) {
      expect(adapter.capabilities(`gemini:${model}`)[flag]).toBe(false);
      const error = await adapter.complete(simpleRequest(model, extra)).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'unsupported_capability' });
      expect((error as Error).message).toContain(flag);
    }
    expect(emulator.requests.length).toBe(before);
    expect(adapter.capabilities('gemini:gemini-2.5-pro')).toMatchObject({
      reasoning: true,
      tools: true,
      images: true,
      audio: true,
      video: true,
      pdf: true,
      structuredOutput: true,
      promptCaching: true,
      contextWindow: 1_048_576,
      maxOutputTokens: 65_536,
    });
    expect(adapter.capabilities('gemini:gemini-2.0-flash')).toMatchObject({
      reasoning: false,
      maxOutputTokens: 8192,
    });
    // Limits come from the models.dev catalog where it lists the model (it says 1M for 1.5 Pro);
    // a name neither the catalog nor a row with limits knows has none (0: left to the provider).
    expect(adapter.capabilities('gemini:gemini-1.5-pro')).toMatchObject({ contextWindow: 1_000_000 });
    expect(adapter.capabilities('gemini:gemini-1.5-pro-002')).toMatchObject({ contextWindow: 0 });
    expect(adapter.capabilities('gemini:gemini-3-pro-preview').streamingToolCalls).toBe(false);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'a cat' }] });
    const image = {
      type: 'media',
      modality: 'image',
      mimeType: 'image/png',
      data: { type: 'base64', data: 'iVBORw0KGgo=' },
    } as const;
    const accepted = await adapter.complete(
      simpleRequest('gemini-2.5-flash', { transcript: [{ kind: 'user', parts: [image] }] }),
    );
    expect(accepted.content).toEqual([{ type: 'text', text: 'a cat' }]);
  });

  it('6. streaming event sequence', async () => {
    emulator.enqueue({ type: 'replay', file: recorded('google-tool-call.chunks.txt') });
    const { adapter } = emulatedGemini(emulator);
    const { events } = await collect(adapter.stream(simpleRequest('gemini-3-pro-preview')));
    assertStreamInvariants(events);
    // The one chunk's usage is read before its content (the input count known at the first content).
    expect(events.map((event) => event.type)).toEqual([
      'message-start',
      'usage',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'finish',
    ]);
  });

  it('7. streaming partial JSON fidelity', async () => {
    emulator.enqueue({
      type: 'replay',
      file: recorded('google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt'),
    });
    const { adapter } = emulatedGemini(emulator);
    const { events } = await collect(adapter.stream(simpleRequest('gemini-3-pro-preview')));
    const deltas = events.filter((event) => event.type === 'tool-call-delta');
    expect(deltas.every((event) => typeof event.delta === 'string')).toBe(true);
    // One fragment per streamed value piece (14), plus the closing brackets: raw text, not objects.
    expect(deltas.map((event) => event.delta)).toEqual([
      '{"operations":[{"action":"add',
      '"',
      ',"description":"Fresh red apple',
      '"',
      ',"itemid":"apple_001',
      '"',
      ',"price":0.5',
      '},{"action":"add',
      '"',
      ',"description":"Ripe yellow banana',
      '"',
      ',"itemid":"banana_001',
      '"',
      ',"price":0.3',
      '}]}',
    ]);
    const end = events.find((event) => event.type === 'tool-call-end');
    expect(JSON.parse([...toolDeltas(events).values()][0] ?? '')).toEqual(
      end?.type === 'tool-call-end' ? end.input : undefined,
    );
  });

  // Error classes, status edge cases, retries, retry-after and cancellation are the public
  // conformance suite's (src/testing/conformance, run in test/conformance/gemini.test.ts).
  it('9. Google error envelopes: arrays, numeric codes, status names', async () => {
    const cases: Array<[Parameters<Emulator['enqueue']>[0], ErrorClass]> = [
      [
        { type: 'json', status: 413, body: { error: { code: 413, message: 'payload too large' } } },
        'context_overflow',
      ],
      [
        {
          type: 'json',
          status: 429,
          body: [{ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'quota' } }],
        },
        'rate_limit',
      ],
      [{ type: 'json', status: 529, body: { error: { code: 529, message: 'overloaded' } } }, 'server_error'],
      [
        {
          type: 'json',
          status: 401,
          body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'no' } },
        },
        'auth',
      ],
      [
        {
          type: 'json',
          status: 403,
          body: [{ error: { code: 403, status: 'PERMISSION_DENIED', message: 'no' } }],
        },
        'auth',
      ],
    ];
    for (const [script, errorClass] of cases) expect((await errorOf(script)).errorClass).toBe(errorClass);
  });

  it('11. RetryInfo in a Google error body counts as retry-after, capped at 60 s', async () => {
    emulator.enqueue(
      googleError(429, 'quota', 'RESOURCE_EXHAUSTED', [
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.2s' },
      ]),
    );
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'after the wait' }] });
    const { adapter } = emulatedGemini(emulator, { maxRetries: 1 });
    const delays: number[] = [];
    await adapter.complete(simpleRequest(), { onRetry: (info) => delays.push(info.delayMs) });
    expect(delays).toEqual([200]);
    emulator.enqueue(
      googleError(429, 'quota', 'RESOURCE_EXHAUSTED', [
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '120s' },
      ]),
    );
    const controller = new AbortController();
    const capped: number[] = [];
    const error = await adapter
      .complete(simpleRequest(), {
        signal: controller.signal,
        onRetry: (info) => {
          capped.push(info.delayMs);
          controller.abort();
        },
      })
      .catch((caught: unknown) => caught);
    expect(capped).toEqual([60_000]);
    expect(error).toMatchObject({ errorClass: 'cancelled' });
  });

  it('12. cancellation mid Gemini 3 partial arguments', async () => {
    const start = { candidates: [{ content: { role: 'model', parts: [{ text: 'Checking.' }] } }] };
    const call = {
      candidates: [
        { content: { role: 'model', parts: [{ functionCall: { name: 'weather', willContinue: true } }] } },
      ],
    };
    const argument = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              {
                functionCall: {
                  partialArgs: [{ jsonPath: '$.city', stringValue: 'Bos', willContinue: true }],
                  willContinue: true,
                },
              },
            ],
          },
        },
      ],
    };
    emulator.enqueue({
      type: 'sse',
      events: [{ data: start }, { data: call }, { data: argument }],
      fault: { stallAfterEvents: 3 },
    });
    const { adapter } = emulatedGemini(emulator);
    const request = simpleRequest('gemini-3-pro-preview', {
      requestId: 'req_cancel_gemini' as CanonicalRequest['requestId'],
    });
    const events: StreamEvent[] = [];
    for await (const event of adapter.stream(request)) {
      events.push(event);
      if (event.type === 'tool-call-delta') expect(adapter.cancel('req_cancel_gemini')).toBe(true);
    }
    expect(adapter.cancel('req_cancel_gemini')).toBe(false);
    assertStreamInvariants(events);
    const end = events.find((event) => event.type === 'tool-call-end');
    expect(end).toMatchObject({ input: { city: 'Bos' } });
    const response = finishOf(events);
    expect(response.finishReason).toBe('cancelled');
    expect(response.content).toEqual([
      { type: 'text', text: 'Checking.' },
      expect.objectContaining({ type: 'tool-call', name: 'weather', input: { city: 'Bos' } }),
    ]);
  });

  it('13. cost-token mapping', async () => {
    emulator.enqueue({
      type: 'json',
      body: {
        candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
        usageMetadata: {
          promptTokenCount: 5000,
          cachedContentTokenCount: 4096,
          toolUsePromptTokenCount: 100,
          candidatesTokenCount: 250,
          thoughtsTokenCount: 750,
          totalTokenCount: 6100,
        },
      },
    });
    const { adapter } = emulatedGemini(emulator);
    const response = await adapter.complete(simpleRequest());
    // input (uncached) = 5000 − 4096 + 100; output = 250 + 750 thoughts; sums back to the total.
    expect(response.usage).toEqual({
      input: 1004,
      cacheRead: 4096,
      cacheWrite: 0,
      output: 1000,
      reasoning: 750,
      toolUsePrompt: 100,
    });
    expect(response.usage.input + response.usage.cacheRead + response.usage.output).toBe(6100);
  });

  it('14. streaming usage propagation', async () => {
    const script: ScriptedScript = {
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'Thinking it over.', signature: 'c2ln' },
        { type: 'text', text: 'The answer is 42.' },
      ],
      usage: { input: 30, cacheRead: 10, output: 12, reasoning: 8 },
    };
    emulator.enqueue(script);
    emulator.enqueue(script);
    const { adapter } = emulatedGemini(emulator);
    const { events } = await collect(adapter.stream(simpleRequest()));
    const completed = await adapter.complete(simpleRequest());
    const streamed = finishOf(events);
    const lastUsage = events.filter((event) => event.type === 'usage').at(-1);
    expect(lastUsage?.type === 'usage' ? lastUsage.usage : undefined).toEqual(streamed.usage);
    expect(streamed.usage).toEqual({ input: 30, cacheRead: 10, cacheWrite: 0, output: 20, reasoning: 8 });
    expect(streamed.usage).toEqual(completed.usage);
    expect(streamed.content).toEqual(completed.content);
  });
});
