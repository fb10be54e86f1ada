import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServerError } from '../../core/errors/guards.ts';
import { systemText, userText } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { convertUsage, mapFinishReason } from './response.ts';
import {
  emulatedGemini,
  finishOf,
  parseBody,
  parseChunks,
  simpleRequest,
  testContext,
  toolDeltas,
} from './test-support.ts';
import { estimateInputTokens } from './tokens.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const finished = (finishReason: string, parts: unknown[] = [{ text: 'partial' }], extra: object = {}) => ({
  candidates: [{ content: { role: 'model', parts }, finishReason, ...extra }],
});

/** What `run` throws (undefined when it returns). */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('finish reasons', () => {
  it.each([
    ['STOP', false, 'completed'],
    ['STOP', true, 'tool-call'],
    ['MAX_TOKENS', false, 'max-tokens'],
    ['SAFETY', false, 'content-filter'],
    ['RECITATION', false, 'content-filter'],
    ['BLOCKLIST', false, 'content-filter'],
    ['PROHIBITED_CONTENT', false, 'content-filter'],
    ['SPII', false, 'content-filter'],
    ['IMAGE_SAFETY', false, 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'error'],
    ['UNEXPECTED_TOOL_CALL', false, 'error'],
    ['LANGUAGE', false, 'other'],
    ['OTHER', false, 'other'],
    ['FINISH_REASON_UNSPECIFIED', false, 'other'],
    ['SOMETHING_NEW', false, 'other'],
  ] as const)('%s (tool calls: %s) → %s', (raw, hasToolCalls, expected) => {
    expect(mapFinishReason(raw, hasToolCalls)).toBe(expected);
  });

  it('a malformed function call finishes with error, no exception, the raw value and message kept', () => {
    const response = parseBody(
      finished('MALFORMED_FUNCTION_CALL', [], {
        finishMessage: 'Malformed function call: print(default_api.f(',
      }),
    );
    expect(response).toMatchObject({
      finishReason: 'error',
      rawFinishReason: 'MALFORMED_FUNCTION_CALL',
      content: [],
      metadata: { 'gemini.finishMessage': 'Malformed function call: print(default_api.f(' },
    });
  });

  it('MAX_TOKENS keeps the text that was produced', () => {
    expect(parseBody(finished('MAX_TOKENS'))).toMatchObject({
      finishReason: 'max-tokens',
      rawFinishReason: 'MAX_TOKENS',
      content: [{ type: 'text', text: 'partial' }],
    });
  });

  it('SAFETY keeps the safety ratings as metadata', () => {
    const ratings = [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }];
    const response = parseBody(finished('SAFETY', [], { safetyRatings: ratings }));
    expect(response.finishReason).toBe('content-filter');
    expect(response.metadata?.['gemini.safetyRatings']).toEqual(ratings);
  });
});

describe('bad input never crashes', () => {
  it('a stream event that is not an object is skipped with a WARN', () => {
    const context = testContext();
    const events = parseChunks([42, finished('STOP', [{ text: 'fine' }])], context);
    expect(events.at(-1)).toMatchObject({ response: { content: [{ type: 'text', text: 'fine' }] } });
    expect(context.logger.entries[0]?.message).toBe('skipped a stream event that is not a JSON object');
  });

  it('a complete body that is not an object, or has no response field, is a retryable ServerError', () => {
    for (const body of ['just a string', [1], {}, { object: 'list', data: [] }]) {
      const caught = thrownBy(() => parseBody(body));
      expect(isServerError(caught)).toBe(true);
      expect(caught).toMatchObject({ providerCode: 'invalid_response', retryable: true });
      expect(String((caught as Error).message)).toMatch(/not a generateContent response/);
    }
  });

  it('an error envelope inside a 200 body throws the classified error', () => {
    expect(() => parseBody({ error: { code: 503, status: 'UNAVAILABLE', message: 'overloaded' } })).toThrow(
      /overloaded/,
    );
  });

  it('a candidate without content and parts with unexpected shapes are tolerated', () => {
    const response = parseBody({
      candidates: [{ finishReason: 'STOP' }],
      usageMetadata: { trafficType: 'X' },
    });
    expect(response).toMatchObject({ finishReason: 'completed', content: [] });
  });

  it('the AUDIO modality of prompt, cached content and candidates is the usage’s audio parts (whole and streamed)', () => {
    const usageMetadata = {
      promptTokenCount: 1100,
      cachedContentTokenCount: 400,
      candidatesTokenCount: 30,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 100 },
        { modality: 'AUDIO', tokenCount: 1000 },
      ],
      cacheTokensDetails: [{ modality: 'AUDIO', tokenCount: 400 }],
      candidatesTokensDetails: [
        { modality: 'TEXT', tokenCount: 10 },
        { modality: 'AUDIO', tokenCount: 20 },
      ],
    };
    const expected = {
      input: 700,
      cacheRead: 400,
      cacheWrite: 0,
      output: 30,
      reasoning: 0,
      audioInput: 600,
      audioCacheRead: 400,
      audioOutput: 20,
    };
    const candidates = [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }];
    expect(parseBody({ candidates, usageMetadata }).usage).toEqual(expected);
    expect(finishOf(parseChunks([{ candidates, usageMetadata }])).usage).toEqual(expected);
  });

  it.each([
    ['ON_DEMAND', 'standard'],
    ['ON_DEMAND_FLEX', 'flex'],
    ['ON_DEMAND_PRIORITY', 'priority'],
    ['PROVISIONED_THROUGHPUT', 'provisioned_throughput'],
    ['TRAFFIC_TYPE_UNSPECIFIED', undefined],
  ])('Vertex trafficType %s is the service tier %s', (trafficType, tier) => {
    const response = parseBody({
      candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1, trafficType },
    });
    expect(response.usage.serviceTier).toBe(tier);
  });

  const warnings = (context: ReturnType<typeof testContext>) =>
    context.logger.entries.map((entry) => [entry.message, entry.fields.reason]);

  it('a null candidate is skipped with a WARN, not a crash (stream and complete)', () => {
    const context = testContext();
    const events = parseChunks([{ candidates: [null] }, finished('STOP', [{ text: 'fine' }])], context);
    assertStreamInvariants(events);
    expect(finishOf(events).content).toEqual([{ type: 'text', text: 'fine' }]);
    expect(warnings(context)).toEqual([['skipped a candidate that is not a JSON object', 'null']]);

    // A whole body with no other candidate answered nothing: an invalid response, after the WARN.
    const completeContext = testContext();
    expect(() => parseBody({ candidates: [null] }, completeContext)).toThrow(/no candidate/);
    expect(warnings(completeContext)).toEqual([['skipped a candidate that is not a JSON object', 'null']]);
  });

  it('a whole body with no candidate and no prompt feedback is a retryable invalid response, not an empty success', () => {
    for (const body of [{ candidates: [] }, { candidates: [], usageMetadata: { promptTokenCount: 5 } }]) {
      const caught = thrownBy(() => parseBody(body));
      expect(isServerError(caught)).toBe(true);
      expect(caught).toMatchObject({ providerCode: 'invalid_response', retryable: true });
    }
    // A blocked prompt has no candidate either: that is its answer (content-filter), not a failure.
    expect(parseBody({ candidates: [], promptFeedback: { blockReason: 'SAFETY' } })).toMatchObject({
      finishReason: 'content-filter',
    });
  });

  it('a null part is skipped with a WARN; the parts around it are kept (stream and complete)', () => {
    const parts = [{ text: 'a' }, null, { text: 'b' }];
    const context = testContext();
    const events = parseChunks([finished('STOP', parts)], context);
    assertStreamInvariants(events);
    expect(finishOf(events).content).toEqual([{ type: 'text', text: 'ab' }]);
    expect(warnings(context)).toEqual([['skipped a part that is not a JSON object', 'null']]);

    const completeContext = testContext();
    expect(parseBody(finished('STOP', parts), completeContext).content).toEqual([
      { type: 'text', text: 'ab' },
    ]);
    expect(warnings(completeContext)).toHaveLength(1);
  });

  it('content parts that are not an array are skipped with a WARN, not read character by character', () => {
    const context = testContext();
    const response = parseBody(
      { candidates: [{ content: { parts: 'abc' }, finishReason: 'STOP' }] },
      context,
    );
    expect(response).toMatchObject({ finishReason: 'completed', content: [] });
    expect(warnings(context)).toEqual([['skipped content parts that are not an array', 'string']]);
  });

  it('a null functionCall is skipped with a WARN, not a crash (stream and complete)', () => {
    const parts = [{ functionCall: null }, { text: 'after' }];
    const context = testContext();
    const events = parseChunks([finished('STOP', parts)], context);
    assertStreamInvariants(events);
    expect(finishOf(events)).toMatchObject({
      finishReason: 'completed',
      content: [{ type: 'text', text: 'after' }],
    });
    expect(warnings(context)).toEqual([['skipped a functionCall that is not a JSON object', 'null']]);
    expect(parseBody(finished('STOP', [{ functionCall: 'f' }])).content).toEqual([]);
  });

  it('null usageMetadata is skipped with a WARN; the usage of later chunks still counts', () => {
    const context = testContext();
    const events = parseChunks(
      [
        { candidates: [{ content: { parts: [{ text: 'a' }] } }], usageMetadata: null },
        {
          ...finished('STOP', [{ text: 'b' }]),
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
        },
      ],
      context,
    );
    assertStreamInvariants(events);
    expect(finishOf(events)).toMatchObject({
      content: [{ type: 'text', text: 'ab' }],
      usage: { input: 3, output: 2 },
    });
    expect(warnings(context)).toEqual([['skipped usageMetadata that is not a JSON object', 'null']]);
    expect(parseBody({ ...finished('STOP'), usageMetadata: 7 }).finishReason).toBe('completed');
  });

  it('a usage count that is not a number counts as 0, not as text', () => {
    expect(
      convertUsage({ promptTokenCount: 3, candidatesTokenCount: '7' as unknown as number }),
    ).toMatchObject({
      input: 3,
      output: 0,
    });
  });

  it.each([
    ['a string', 'x', '"x"'],
    ['an array', [1], '[1]'],
  ])(
    'function-call args that are %s become {} with the raw value in switchyard.raw_input',
    (_, args, raw) => {
      const parts = [{ functionCall: { name: 'f', args } }];
      const context = testContext();
      const events = parseChunks([finished('STOP', parts)], context);
      assertStreamInvariants(events);
      const end = events.find((event) => event.type === 'tool-call-end');
      expect(end).toMatchObject({ input: {}, incomplete: true, metadata: { 'switchyard.raw_input': raw } });
      expect([...toolDeltas(events).values()]).toEqual(['{}']);
      expect(warnings(context)).toEqual([
        [
          'function-call args are not a JSON object; the input is {}',
          Array.isArray(args) ? 'array' : 'string',
        ],
      ]);

      const response = parseBody(finished('STOP', parts));
      expect(response.finishReason).toBe('tool-call');
      expect(response.content[0]).toMatchObject({
        type: 'tool-call',
        input: {},
        metadata: { 'switchyard.raw_input': raw },
      });
    },
  );

  it('function-call args that are an object or absent carry no raw_input', () => {
    const response = parseBody(
      finished('STOP', [{ functionCall: { name: 'f', args: { a: 1 } } }, { functionCall: { name: 'g' } }]),
    );
    expect(
      response.content.map((part) => (part.type === 'tool-call' ? [part.input, part.metadata] : part)),
    ).toEqual([
      [{ a: 1 }, undefined],
      [{}, undefined],
    ]);
  });
});

describe('models and token estimates', () => {
  it('lists models with canonical ids and token limits', async () => {
    const { adapter } = emulatedGemini(emulator);
    const models = await adapter.listModels();
    expect(models).toContainEqual({
      id: 'gemini:gemini-2.5-flash',
      name: 'gemini-2.5-flash',
      displayName: 'Gemini 2.5 Flash',
      contextWindow: 1_048_576,
      maxOutputTokens: 65_536,
    });
    expect(emulator.requests.at(-1)?.path).toBe('/v1beta/models');
  });

  it('estimates text by words and symbols (400 short words ≈ 440 tokens) and images at 258 tokens', () => {
    const text = 'word '.repeat(400);
    const estimate = estimateInputTokens({ transcript: [systemText('Be brief.'), userText(text)] });
    expect(estimate).toBeGreaterThan(430);
    expect(estimate).toBeLessThan(470);
    const withImage = estimateInputTokens({
      transcript: [
        {
          kind: 'user',
          parts: [
            { type: 'media', modality: 'image', mimeType: 'image/png', data: { type: 'base64', data: '' } },
          ],
        },
      ],
    });
    expect(withImage).toBe(258 + 4);
  });

  it('the adapter exposes the estimate without a network call', () => {
    const { adapter } = emulatedGemini(emulator);
    const before = emulator.requests.length;
    expect(adapter.estimateInputTokens({ transcript: simpleRequest().transcript })).toBeGreaterThan(0);
    expect(emulator.requests.length).toBe(before);
  });
});
