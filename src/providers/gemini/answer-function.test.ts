/**
 * Structured output with function tools: Gemini before 3 answers 400 to JSON mode beside function
 * declarations, so the adapter asks for the answer as a call of `final_answer` and reads it back as
 * the reply's text; Gemini 3 gets JSON mode as before. Through the emulator, which refuses JSON
 * mode with function declarations on Gemini 2.5 as the real API does.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { ToolSpec } from '../../core/tools.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { buildRequest } from './request.ts';
import type { StreamEvent } from '../../core/events.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { createStreamParser } from './stream.ts';
import { collect, emulatedGemini, finishOf, parseBody, simpleRequest, testContext } from './test-support.ts';
import { rememberAnswerFunction } from './answer-function.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.clear());

const weather: ToolSpec = {
  name: 'weather',
  description: 'Current weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const forecast = {
  type: 'object',
  properties: { city: { type: 'string' }, sunny: { type: 'boolean' } },
  required: ['city', 'sunny'],
};
const structured = (model: string, extra: Partial<CanonicalRequest> = {}) =>
  simpleRequest(model, { tools: [weather], outputSchema: { schema: forecast }, ...extra });

type Body = {
  tools?: Array<{ functionDeclarations?: Array<{ name: string; parameters?: unknown }> }>;
  toolConfig?: unknown;
  generationConfig?: Record<string, unknown>;
};
const lastBody = () => emulator.requests.at(-1)?.body as Body;
const declared = (body: Body) =>
  body.tools?.[0]?.functionDeclarations?.map((declaration) => declaration.name);

describe('Gemini 2.5: the structured answer as a function call', () => {
  it('sends no JSON mode, declares final_answer with the schema, and makes the model call a function', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'weather', input: { city: 'Rome' } }],
    });
    const { adapter, logger } = emulatedGemini(emulator);
    const response = await adapter.complete(structured('gemini-2.5-flash'));
    const body = lastBody();
    expect(body.generationConfig).not.toHaveProperty('responseMimeType');
    expect(body.generationConfig).not.toHaveProperty('responseSchema');
    expect(declared(body)).toEqual(['weather', 'final_answer']);
    // 2.5 takes JSON Schema (useJsonSchema 'auto'): the output schema as is.
    expect(body.tools?.[0]?.functionDeclarations?.[1]).toMatchObject({ parametersJsonSchema: forecast });
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    // A real tool call stays one.
    expect(response.finishReason).toBe('tool-call');
    expect(response.content).toMatchObject([{ type: 'tool-call', name: 'weather', input: { city: 'Rome' } }]);
    expect(logger.entries.map((entry) => entry.message)).toContain(
      'structured output asked for as a function call: the model takes no JSON mode with tools',
    );
  });

  it.each([false, true])(
    'the final_answer call is the reply’s text, never a tool call (stream %s)',
    async (stream) => {
      emulator.enqueue({
        type: 'scripted',
        content: [
          { type: 'text', text: 'Here it is:' },
          { type: 'tool-call', name: 'final_answer', input: { city: 'Rome', sunny: true } },
        ],
      });
      const { adapter, logger } = emulatedGemini(emulator);
      const request = structured('gemini-2.5-flash');
      let response;
      if (stream) {
        const { events } = await collect(adapter.stream(request));
        assertStreamInvariants(events);
        expect(events.some((event) => event.type.startsWith('tool-call'))).toBe(false);
        response = finishOf(events);
      } else response = await adapter.complete(request);
      expect(response.finishReason).toBe('completed');
      expect(response.content).toEqual([{ type: 'text', text: '{"city":"Rome","sunny":true}' }]);
      expect(logger.entries.map((entry) => entry.message)).toContain(
        'dropped text beside the structured answer (asked for as a function call)',
      );
    },
  );

  it('a tool named final_answer keeps its name: the answer function is final_answer_1', async () => {
    const own: ToolSpec = { name: 'final_answer', inputSchema: { type: 'object', properties: {} } };
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'final_answer_1', input: { city: 'Oslo', sunny: false } }],
    });
    const { adapter } = emulatedGemini(emulator);
    const response = await adapter.complete(structured('gemini-2.5-flash', { tools: [weather, own] }));
    expect(declared(lastBody())).toEqual(['weather', 'final_answer', 'final_answer_1']);
    expect(response.content).toEqual([{ type: 'text', text: '{"city":"Oslo","sunny":false}' }]);

    // The caller's own final_answer is a tool call as ever.
    emulator.enqueue({ type: 'scripted', content: [{ type: 'tool-call', name: 'final_answer', input: {} }] });
    const own2 = await adapter.complete(structured('gemini-2.5-flash', { tools: [weather, own] }));
    expect(own2.content).toMatchObject([{ type: 'tool-call', name: 'final_answer' }]);
  });

  it('an answer that is not an object is the value of one, unwrapped in the reply', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'final_answer', input: { value: ['a', 'b'] } }],
    });
    const { adapter } = emulatedGemini(emulator);
    const schema = { type: 'array', items: { type: 'string' } };
    const response = await adapter.complete(structured('gemini-2.5-pro', { outputSchema: { schema } }));
    expect(lastBody().tools?.[0]?.functionDeclarations?.[1]).toMatchObject({
      parametersJsonSchema: { type: 'object', properties: { value: schema }, required: ['value'] },
    });
    expect(response.content).toEqual([{ type: 'text', text: '["a","b"]' }]);
  });

  it('members the model gave beside a wrapped answer’s value are dropped with a WARN naming them', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'tool-call', name: 'final_answer', input: { value: ['a'], reason: 'short', note: 1 } },
      ],
    });
    const { adapter, logger } = emulatedGemini(emulator);
    const schema = { type: 'array', items: { type: 'string' } };
    const response = await adapter.complete(structured('gemini-2.5-pro', { outputSchema: { schema } }));
    expect(response.content).toEqual([{ type: 'text', text: '["a"]' }]);
    const warnings = logger.entries.filter((entry) => entry.message.includes('beside its value'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toMatchObject({ dropped: ['reason', 'note'] });
  });

  it('tool choice: a named tool stays forced; none allows the answer function only', () => {
    const config = (toolChoice: CanonicalRequest['toolChoice']) =>
      buildRequest(structured('gemini-2.5-flash', { toolChoice }), testContext(), { useJsonSchema: false })
        .body.toolConfig;
    expect(config({ type: 'tool', name: 'weather' })).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['weather'] },
    });
    expect(config('none')).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['final_answer'] },
    });
    expect(config('required')).toEqual({ functionCallingConfig: { mode: 'ANY' } });
  });

  it('useJsonSchema false: the answer function takes the schema in Gemini’s OpenAPI subset', () => {
    const wire = buildRequest(structured('gemini-2.5-flash'), testContext(), { useJsonSchema: false });
    const body = wire.body as Body;
    expect(body.tools?.[0]?.functionDeclarations?.[1]?.parameters).toEqual({
      type: 'OBJECT',
      properties: { city: { type: 'STRING' }, sunny: { type: 'BOOLEAN' } },
      propertyOrdering: ['city', 'sunny'],
      required: ['city', 'sunny'],
    });
    expect(body.generationConfig).not.toHaveProperty('responseSchema');
    expect(body.generationConfig).not.toHaveProperty('responseMimeType');
  });

  it('streamed answer arguments (partialArgs) are gathered into the text', () => {
    const context = testContext({ stream: true });
    rememberAnswerFunction(context, { name: 'final_answer', wrapped: false });
    const events: StreamEvent[] = [];
    const builder = new StreamBuilder(
      { requestId: context.requestId, provider: 'gemini', model: 'gemini:gemini-2.5-flash', startedAt: 0 },
      (event) => events.push(event),
    );
    const parser = createStreamParser(context, builder);
    for (const chunk of [
      {
        candidates: [
          { content: { parts: [{ functionCall: { name: 'final_answer', willContinue: true } }] } },
        ],
      },
      {
        candidates: [
          {
            content: {
              parts: [{ functionCall: { partialArgs: [{ jsonPath: '$.city', stringValue: 'Rome' }] } }],
            },
          },
        ],
      },
      { candidates: [{ content: { parts: [{ functionCall: {} }] }, finishReason: 'STOP' }] },
    ])
      parser.onEvent(undefined, JSON.stringify(chunk));
    parser.onEnd();
    builder.finish();
    assertStreamInvariants(events);
    expect(finishOf(events).content).toEqual([{ type: 'text', text: '{"city":"Rome"}' }]);
    expect(finishOf(events).finishReason).toBe('completed');
  });

  it('a thought signature on the answer call signs the text (replayed with it)', () => {
    const context = testContext();
    rememberAnswerFunction(context, { name: 'final_answer', wrapped: false });
    const response = parseBody(
      {
        candidates: [
          {
            content: {
              parts: [{ functionCall: { name: 'final_answer', args: { a: 1 } }, thoughtSignature: 'c2ln' }],
            },
            finishReason: 'STOP',
          },
        ],
      },
      context,
    );
    expect(response.content).toEqual([
      { type: 'text', text: '{"a":1}', metadata: { 'gemini.thoughtSignature': 'c2ln' } },
    ]);
  });
});

describe('Gemini 2.5: an output schema with definitions', () => {
  // zod-to-json-schema with a name writes a root $ref into $defs.
  const named = {
    $ref: '#/$defs/Answer',
    $defs: { Answer: forecast },
  };
  const parameters = (schema: JsonObject, useJsonSchema: boolean) =>
    (
      buildRequest(structured('gemini-2.5-flash', { outputSchema: { schema } }), testContext(), {
        useJsonSchema,
      }).body as Body
    ).tools?.[0]?.functionDeclarations?.[1] as Record<string, unknown>;

  it('a root $ref to an object is resolved, its definitions kept: the parameters, unwrapped', async () => {
    expect(parameters(named, false).parameters).toEqual({
      type: 'OBJECT',
      properties: { city: { type: 'STRING' }, sunny: { type: 'BOOLEAN' } },
      propertyOrdering: ['city', 'sunny'],
      required: ['city', 'sunny'],
    });
    expect(parameters(named, true).parametersJsonSchema).toEqual({ ...forecast, $defs: named.$defs });

    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'final_answer', input: { city: 'Rome', sunny: true } }],
    });
    const { adapter } = emulatedGemini(emulator);
    const response = await adapter.complete(
      structured('gemini-2.5-flash', { outputSchema: { schema: named } }),
    );
    expect(response.content).toEqual([{ type: 'text', text: '{"city":"Rome","sunny":true}' }]);
  });

  it('a wrapped schema’s definitions are lifted to the wrapper’s root; other local $refs follow it', async () => {
    const list = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $ref: '#/$defs/Cities',
      $defs: { Cities: { type: 'array', items: { $ref: '#/definitions/City' } } },
      definitions: { City: { type: 'string', description: 'A city' } },
    };
    expect(parameters(list, true).parametersJsonSchema).toEqual({
      type: 'object',
      properties: { value: { $ref: '#/$defs/Cities' } },
      required: ['value'],
      $defs: list.$defs,
      definitions: list.definitions,
    });
    expect(parameters(list, false).parameters).toEqual({
      type: 'OBJECT',
      properties: { value: { type: 'ARRAY', items: { type: 'STRING', description: 'A city' } } },
      required: ['value'],
    });
    // A reference into the wrapped schema itself (not its definitions) points into `value`.
    const tuple = { type: 'array', items: { type: 'string' }, contains: { $ref: '#/items' } };
    expect(parameters(tuple, true).parametersJsonSchema).toMatchObject({
      properties: { value: { contains: { $ref: '#/properties/value/items' } } },
    });

    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'final_answer', input: { value: ['Rome', 'Oslo'] } }],
    });
    const { adapter } = emulatedGemini(emulator);
    const response = await adapter.complete(
      structured('gemini-2.5-flash', { outputSchema: { schema: list } }),
    );
    expect(response.content).toEqual([{ type: 'text', text: '["Rome","Oslo"]' }]);
  });
});

describe('Gemini 2.5: a reply without the answer call', () => {
  const refusal = 'I cannot help with that request.';

  it.each([false, true])('text only: the text is the reply, with a WARN (stream %s)', async (stream) => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: refusal }] });
    const { adapter, logger } = emulatedGemini(emulator);
    const request = structured('gemini-2.5-flash');
    let response;
    if (stream) {
      const { events } = await collect(adapter.stream(request));
      assertStreamInvariants(events);
      response = finishOf(events);
    } else response = await adapter.complete(request);
    expect(response.content).toEqual([{ type: 'text', text: refusal }]);
    expect(response.finishReason).toBe('completed');
    const messages = logger.entries.map((entry) => entry.message);
    expect(messages).toContain(
      'the structured answer did not come (asked for as a function call): the reply is the text',
    );
    expect(messages).not.toContain(
      'dropped text beside the structured answer (asked for as a function call)',
    );
  });

  it('text before a tool call stays, before it; no WARN (a tool turn has no answer to give)', () => {
    const context = testContext();
    rememberAnswerFunction(context, { name: 'final_answer', wrapped: false });
    const response = parseBody(
      {
        candidates: [
          {
            content: {
              parts: [
                { text: 'Let me check.', thoughtSignature: 'c2ln' },
                { functionCall: { name: 'weather', args: { city: 'Rome' } } },
              ],
            },
            finishReason: 'STOP',
          },
        ],
      },
      context,
    );
    expect(response.content).toMatchObject([
      { type: 'text', text: 'Let me check.', metadata: { 'gemini.thoughtSignature': 'c2ln' } },
      { type: 'tool-call', name: 'weather', input: { city: 'Rome' } },
    ]);
    expect(response.finishReason).toBe('tool-call');
    expect(context.logger.entries).toEqual([]);
  });

  it('text after the answer call is dropped too', () => {
    const context = testContext();
    rememberAnswerFunction(context, { name: 'final_answer', wrapped: false });
    const response = parseBody(
      {
        candidates: [
          {
            content: {
              parts: [{ functionCall: { name: 'final_answer', args: { a: 1 } } }, { text: 'Done.' }],
            },
            finishReason: 'STOP',
          },
        ],
      },
      context,
    );
    expect(response.content).toEqual([{ type: 'text', text: '{"a":1}' }]);
    expect(context.logger.entries.map((entry) => entry.message)).toEqual([
      'dropped text beside the structured answer (asked for as a function call)',
    ]);
  });
});

describe('Gemini 2.5: the answer call beside a real tool call', () => {
  const dropped =
    'dropped the structured answer (asked for as a function call) called beside a tool: the tool calls are the reply';

  it.each([false, true])(
    'final_answer called before a tool: the tool call wins, the answer is dropped with a WARN (stream %s)',
    async (stream) => {
      emulator.enqueue({
        type: 'scripted',
        content: [
          { type: 'tool-call', name: 'final_answer', input: { city: 'Rome', sunny: true } },
          { type: 'tool-call', name: 'weather', input: { city: 'Rome' } },
        ],
      });
      const { adapter, logger } = emulatedGemini(emulator);
      const request = structured('gemini-2.5-flash');
      let response;
      if (stream) {
        const { events } = await collect(adapter.stream(request));
        assertStreamInvariants(events);
        // Never streamed: not a text delta of the answer before the tool call.
        expect(events.some((event) => event.type.startsWith('text'))).toBe(false);
        response = finishOf(events);
      } else response = await adapter.complete(request);
      expect(response.finishReason).toBe('tool-call');
      expect(response.content).toMatchObject([
        { type: 'tool-call', name: 'weather', input: { city: 'Rome' } },
      ]);
      expect(response.content).toHaveLength(1);
      expect(logger.entries.filter((entry) => entry.message === dropped)).toMatchObject([
        { fields: { function: 'final_answer' } },
      ]);
    },
  );

  it('final_answer called after a tool: dropped too, the reply finishes tool-call', () => {
    const context = testContext();
    rememberAnswerFunction(context, { name: 'final_answer', wrapped: false });
    const response = parseBody(
      {
        candidates: [
          {
            content: {
              parts: [
                { functionCall: { name: 'weather', args: { city: 'Rome' } } },
                { functionCall: { name: 'final_answer', args: { a: 1 } } },
              ],
            },
            finishReason: 'STOP',
          },
        ],
      },
      context,
    );
    expect(response.content).toMatchObject([{ type: 'tool-call', name: 'weather', input: { city: 'Rome' } }]);
    expect(response.content).toHaveLength(1);
    expect(response.finishReason).toBe('tool-call');
    expect(context.logger.entries.map((entry) => entry.message)).toEqual([dropped]);
  });
});

describe('JSON mode as before', () => {
  it('Gemini 3 takes JSON mode with tools: responseMimeType and the schema, no answer function', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: '{"city":"Rome","sunny":true}' }] });
    const { adapter, logger } = emulatedGemini(emulator);
    const response = await adapter.complete(structured('gemini-3-pro-preview'));
    const body = lastBody();
    expect(body.generationConfig).toMatchObject({ responseMimeType: 'application/json' });
    expect(declared(body)).toEqual(['weather']);
    expect(body.toolConfig).toBeUndefined();
    expect(response.content).toEqual([{ type: 'text', text: '{"city":"Rome","sunny":true}' }]);
    expect(logger.entries).toEqual([]);
  });

  it('Gemini 2.5 without tools: JSON mode', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: '{"city":"Rome","sunny":true}' }] });
    const { adapter } = emulatedGemini(emulator);
    await adapter.complete(structured('gemini-2.5-flash', { tools: [] }));
    expect(lastBody().generationConfig).toMatchObject({ responseMimeType: 'application/json' });
    expect(lastBody().tools).toBeUndefined();
  });
});
