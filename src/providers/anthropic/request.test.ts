/** Canonical → Messages API translation: behaviour beyond the golden bodies. */
import { describe, expect, it } from 'vitest';
import { isInvalidRequestError } from '../../core/errors/guards.ts';
import { type MessageId, toolCallId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { Item, Part } from '../../core/transcript.ts';
import type { WireMessage } from './api.ts';
import { applyCacheBreakpoints, countCacheBreakpoints, maxCacheBreakpoints } from './cache.ts';
import { buildRequest, convertToolChoice, convertTools } from './request.ts';
import { createTestContext } from './test-support.ts';

const citySchema = { type: 'object', properties: { city: { type: 'string' } } };

const callId = toolCallId('tu_01JCALL000000000000000000');

function build(request: Partial<CanonicalRequest> & { transcript: Item[] }, model = 'claude-sonnet-4-5') {
  const context = createTestContext({ model });
  const wire = buildRequest({ model: `anthropic:${model}`, maxOutputTokens: 1024, ...request }, context);
  return { body: wire.body, headers: wire.headers, warnings: context.logger.entries };
}

function user(...parts: Part[]): Item {
  return { kind: 'user', parts };
}

function text(value: string): Part {
  return { type: 'text', text: value };
}

function messagesOf(body: JsonObject): WireMessage[] {
  return body.messages as unknown as WireMessage[];
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('tools and tool choice', () => {
  it('maps auto, required, none and a named tool', () => {
    expect(convertToolChoice('auto', undefined)).toEqual({ type: 'auto' });
    expect(convertToolChoice('required', undefined)).toEqual({ type: 'any' });
    expect(convertToolChoice('none', undefined)).toEqual({ type: 'none' });
    expect(convertToolChoice({ type: 'tool', name: 'get_weather' }, undefined)).toEqual({
      type: 'tool',
      name: 'get_weather',
    });
    expect(convertToolChoice(undefined, undefined)).toBeUndefined();
  });

  it('disables parallel tool use when parallelToolCalls is false, on auto by default', () => {
    expect(convertToolChoice(undefined, false)).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(convertToolChoice('required', false)).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(convertToolChoice({ type: 'tool', name: 'x' }, false)).toEqual({
      type: 'tool',
      name: 'x',
      disable_parallel_tool_use: true,
    });
    expect(convertToolChoice('none', false)).toEqual({ type: 'none' });
    expect(convertToolChoice('auto', true)).toEqual({ type: 'auto' });
  });

  it('sends no tool_choice without tools', () => {
    const { body } = build({ transcript: [user(text('q'))], toolChoice: 'none', parallelToolCalls: false });
    expect(body.tool_choice).toBeUndefined();
  });

  it('converts tool specs to name, description and input_schema', () => {
    expect(
      convertTools([
        { name: 'a', description: 'A', inputSchema: { type: 'object' }, outputSchema: { type: 'string' } },
      ]),
    ).toEqual([{ name: 'a', description: 'A', input_schema: { type: 'object' } }]);
  });
});

describe('strict tools', () => {
  const schema = { type: 'object', properties: { a: { type: 'string', minLength: 2 } }, required: ['a'] };
  const tools = [
    { name: 'f', inputSchema: schema, strict: true },
    { name: 'g', inputSchema: citySchema, strict: false },
  ];
  const ask = [user(text('q'))];

  it('a strict tool goes strict: true, its schema closed (no beta flag), where the model takes structured outputs', () => {
    const { body, headers, warnings } = build({ transcript: ask, tools });
    expect(body.tools).toEqual([
      {
        name: 'f',
        input_schema: {
          type: 'object',
          properties: { a: { type: 'string', description: '(minLength: 2)' } },
          required: ['a'],
          additionalProperties: false,
        },
        strict: true,
      },
      { name: 'g', input_schema: citySchema },
    ]);
    expect(headers?.['anthropic-beta']).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('goes without strict, with a WARN, on a model without strict tools or with a schema of free-form keys', () => {
    const older = build({ transcript: ask, tools }, 'claude-3-5-haiku-20241022');
    expect(older.body.tools).toEqual([
      { name: 'f', input_schema: schema },
      { name: 'g', input_schema: citySchema },
    ]);
    expect(older.warnings).toMatchObject([
      {
        message: 'sent a tool without strict',
        fields: { tool: 'f', reason: 'the model has no strict tool use' },
      },
    ]);
    const open = { type: 'object', additionalProperties: { type: 'string' } };
    const free = build({ transcript: ask, tools: [{ name: 'h', inputSchema: open, strict: true }] });
    expect(free.body.tools).toEqual([{ name: 'h', input_schema: open }]);
    expect(free.warnings).toMatchObject([
      {
        message: 'sent a tool without strict',
        fields: { tool: 'h', reason: 'its schema cannot be made strict' },
      },
    ]);
  });
});

describe('extended thinking', () => {
  const ask = [user(text('Think.'))];

  it('maps effort to a budget on budget-only models, capped at three quarters of max_tokens', () => {
    const thinking = (effort: 'minimal' | 'low' | 'medium' | 'high', maxOutputTokens = 32_000) =>
      build({ transcript: ask, reasoning: { effort }, maxOutputTokens }).body.thinking;
    expect(thinking('minimal')).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(thinking('low')).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(thinking('medium')).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(thinking('high')).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(thinking('high', 4096)).toEqual({ type: 'enabled', budget_tokens: 3072 });
  });

  it('prefers an explicit budget, raised to the 1024 minimum with a WARN', () => {
    const { body, warnings } = build({
      transcript: ask,
      reasoning: { budgetTokens: 500, effort: 'high' },
      maxOutputTokens: 8000,
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(warnings).toMatchObject([
      { message: 'adjusted the thinking budget', fields: { requested: 500, sent: 1024 } },
    ]);
  });

  it('sends an effort without thinking, with a WARN, when maxOutputTokens leaves no room for the minimum budget', () => {
    // What a Responses client's `reasoning.effort: low` with `max_output_tokens: 300` becomes: OpenAI serves it.
    for (const maxOutputTokens of [300, 1024]) {
      const { body, warnings } = build({ transcript: ask, reasoning: { effort: 'low' }, maxOutputTokens });
      expect(body).not.toHaveProperty('thinking');
      expect(body.max_tokens).toBe(maxOutputTokens);
      expect(warnings).toEqual([
        {
          message: 'ignored a reasoning request',
          fields: expect.objectContaining({
            effort: 'low',
            reason: `maxOutputTokens ${maxOutputTokens} leaves no room for extended thinking (budget_tokens must be at least 1024 and below max_tokens)`,
          }),
        },
      ]);
    }
    // Reasoning asked with neither effort nor budget (effort medium) is the same.
    expect(build({ transcript: ask, reasoning: {}, maxOutputTokens: 500 }).body).not.toHaveProperty(
      'thinking',
    );
    // One token more and the smallest budget fits.
    expect(
      build({ transcript: ask, reasoning: { effort: 'low' }, maxOutputTokens: 1025 }).body.thinking,
    ).toEqual({
      type: 'enabled',
      budget_tokens: 1024,
    });
  });

  it('refuses an explicit budget when maxOutputTokens leaves no room for the minimum budget', () => {
    const error = thrown(() =>
      build({ transcript: ask, reasoning: { budgetTokens: 1024, effort: 'low' }, maxOutputTokens: 300 }),
    );
    expect(isInvalidRequestError(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'thinking_needs_room' });
    expect((error as Error).message).toContain('maxOutputTokens above 1024');
  });

  it('uses adaptive thinking and output_config.effort on Claude 4.6 when an effort is given', () => {
    const { body } = build({ transcript: ask, reasoning: { effort: 'minimal' } }, 'claude-opus-4-6');
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(body.output_config).toEqual({ effort: 'low' });
    const budget = build(
      { transcript: ask, reasoning: { budgetTokens: 3000 }, maxOutputTokens: 8000 },
      'claude-sonnet-4-6',
    ).body;
    expect(budget.thinking).toEqual({ type: 'enabled', budget_tokens: 3000 });
  });

  it('maps a budget to the nearest effort on adaptive-only models (Opus 4.7+)', () => {
    const effort = (budgetTokens: number) =>
      build({ transcript: ask, reasoning: { budgetTokens } }, 'claude-opus-4-7').body.output_config;
    expect(effort(1500)).toEqual({ effort: 'low' });
    expect(effort(8000)).toEqual({ effort: 'medium' });
    expect(effort(30000)).toEqual({ effort: 'high' });
    // Neither effort nor budget: the API's own default effort (high), so none is sent.
    const body = build({ transcript: ask, reasoning: {} }, 'claude-opus-5').body;
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(body.output_config).toBeUndefined();
  });

  it('combines effort and structured output in one output_config', () => {
    const { body } = build(
      { transcript: ask, reasoning: { effort: 'high' }, outputSchema: { schema: citySchema } },
      'claude-opus-4-6',
    );
    expect(body.output_config).toEqual({
      effort: 'high',
      format: { type: 'json_schema', schema: { ...citySchema, additionalProperties: false } },
    });
  });

  it('drops temperature and top_k and raises top_p under thinking, with WARNs', () => {
    const { body, warnings } = build(
      {
        transcript: ask,
        reasoning: { budgetTokens: 2000 },
        maxOutputTokens: 4000,
        temperature: 0.3,
        topK: 20,
        topP: 0.5,
      },
      'claude-3-7-sonnet-20250219',
    );
    expect(body.temperature).toBeUndefined();
    expect(body.top_k).toBeUndefined();
    expect(body.top_p).toBe(0.95);
    expect(warnings.map((entry) => entry.fields.option)).toEqual(['temperature', 'top_k', 'top_p']);
    const exact = build({
      transcript: ask,
      reasoning: { budgetTokens: 2000 },
      maxOutputTokens: 4000,
      temperature: 1,
    });
    expect(exact.body.temperature).toBe(1);
    expect(exact.warnings).toEqual([]);
  });

  it('sends a temperature above 1 (OpenAI and Gemini take up to 2) as 1, the most Anthropic takes, with a WARN', () => {
    const { body, warnings } = build({ transcript: ask, temperature: 1.5 });
    expect(body.temperature).toBe(1);
    expect(warnings).toMatchObject([
      { message: 'adjusted a sampling option', fields: { option: 'temperature', requested: 1.5, sent: 1 } },
    ]);
    const inRange = build({ transcript: ask, temperature: 0.7 });
    expect(inRange.body.temperature).toBe(0.7);
    expect(inRange.warnings).toEqual([]);
  });

  it('sends sampling as is without thinking on models before Claude 4.5', () => {
    const { body, warnings } = build(
      { transcript: ask, temperature: 0.3, topK: 20, topP: 0.5 },
      'claude-3-7-sonnet-20250219',
    );
    expect(body).toMatchObject({ temperature: 0.3, top_k: 20, top_p: 0.5 });
    expect(body.thinking).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('keeps temperature and drops top_p on Claude 4.5+, which refuse both', () => {
    const { body, warnings } = build({ transcript: ask, temperature: 0.3, topK: 20, topP: 0.5 });
    expect(body).toMatchObject({ temperature: 0.3, top_k: 20 });
    expect(body.top_p).toBeUndefined();
    expect(warnings).toMatchObject([
      { fields: { option: 'top_p', reason: 'claude-sonnet-4-5 takes temperature or top_p, not both' } },
    ]);
    expect(build({ transcript: ask, topP: 0.5 }).body.top_p).toBe(0.5);
  });

  it('ignores reasoning with a WARN on a model without extended thinking (direct calls)', () => {
    const { body, warnings } = build(
      { transcript: ask, reasoning: { effort: 'high' } },
      'claude-3-5-haiku-20241022',
    );
    expect(body.thinking).toBeUndefined();
    expect(warnings).toMatchObject([{ message: 'ignored a reasoning request' }]);
  });

  it('refuses a forced tool choice under thinking', () => {
    const error = thrown(() =>
      build({
        transcript: ask,
        reasoning: { budgetTokens: 2000 },
        maxOutputTokens: 4000,
        tools: [{ name: 'a', inputSchema: { type: 'object' } }],
        toolChoice: 'required',
      }),
    );
    expect(isInvalidRequestError(error)).toBe(true);
  });

  it('an effort beside a forced tool choice goes without thinking, with a WARN; the effort alone where the model takes one', () => {
    const forced = (model: string) =>
      build(
        {
          transcript: ask,
          reasoning: { effort: 'medium' },
          maxOutputTokens: 4000,
          tools: [{ name: 'a', inputSchema: { type: 'object' } }],
          toolChoice: { type: 'tool', name: 'a' },
        },
        model,
      );
    const opus = forced('claude-opus-4-5-20251101');
    expect(opus.body.thinking).toBeUndefined();
    expect(opus.body.tool_choice).toEqual({ type: 'tool', name: 'a' });
    expect(opus.body.output_config).toEqual({ effort: 'medium' });
    expect(opus.warnings).toMatchObject([
      { message: 'thinking disabled: a forced tool choice cannot be combined with extended thinking' },
    ]);
    const sonnet = forced('claude-sonnet-4-5-20250929');
    expect(sonnet.body.thinking).toBeUndefined();
    expect(sonnet.body.output_config).toBeUndefined();
    expect(sonnet.body.tool_choice).toEqual({ type: 'tool', name: 'a' });
  });
});

describe('content parts', () => {
  it('drops artifact handles with the projection WARN, for media, files and tool results', () => {
    const handle = { type: 'handle', handle: 'artifact-42' } as const;
    const parts: Part[] = [
      { type: 'media', modality: 'image', mimeType: 'image/png', data: handle },
      { type: 'file', mimeType: 'application/pdf', data: handle },
      { type: 'file', mimeType: 'text/plain', data: handle },
    ];
    const { body, warnings } = build({
      transcript: [
        { id: 'msg_1' as MessageId, kind: 'user', parts: [text('See these.'), ...parts] },
        {
          kind: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId,
              output: { type: 'parts', parts: [{ ...(parts[0] as Part) }] },
              isError: false,
            },
          ],
        },
      ],
    });
    expect(messagesOf(body)[0]?.content).toEqual([
      { type: 'tool_result', tool_use_id: expect.any(String) },
      { type: 'text', text: 'See these.' },
    ]);
    const site = { adapter: 'anthropic', requestId: 'req_test', sessionId: expect.any(String) };
    expect(warnings.map((entry) => entry.fields)).toEqual([
      {
        ...site,
        messageId: 'msg_1',
        itemIndex: 0,
        partIndex: 1,
        blockType: 'media',
        reason: expect.stringMatching(/artifact handle.*resolve handles to base64, bytes or a URL/),
      },
      {
        ...site,
        messageId: 'msg_1',
        itemIndex: 0,
        partIndex: 2,
        blockType: 'file',
        reason: expect.stringContaining('artifact handle'),
      },
      {
        ...site,
        messageId: 'msg_1',
        itemIndex: 0,
        partIndex: 3,
        blockType: 'file',
        reason: expect.stringContaining('artifact handle'),
      },
      {
        ...site,
        messageId: null,
        itemIndex: 1,
        partIndex: 0,
        blockType: 'media',
        reason: expect.stringContaining('artifact handle'),
      },
    ]);
  });

  it('drops a plain-text file given by URL (text documents are inline only) with a WARN', () => {
    const { body, warnings } = build({
      transcript: [
        user(text('Read it.'), {
          type: 'file',
          mimeType: 'text/plain',
          data: { type: 'uri', uri: 'https://x/a.txt' },
        }),
      ],
    });
    expect(messagesOf(body)[0]?.content).toEqual([{ type: 'text', text: 'Read it.' }]);
    expect(warnings[0]?.fields).toMatchObject({ blockType: 'file', itemIndex: 0, partIndex: 1 });
  });

  it('drops media and files the API cannot take, with a WARN each', () => {
    const { body, warnings } = build({
      transcript: [
        user(
          text('Listen.'),
          {
            type: 'media',
            modality: 'binary',
            mimeType: 'application/octet-stream',
            data: { type: 'base64', data: 'AA==' },
          },
          { type: 'file', mimeType: 'application/zip', data: { type: 'base64', data: 'UEs=' } },
        ),
      ],
    });
    expect(messagesOf(body)[0]?.content).toEqual([{ type: 'text', text: 'Listen.' }]);
    expect(warnings.map((entry) => entry.fields.blockType)).toEqual(['media', 'file']);
  });

  it('sends image files as image blocks and structured parts as JSON text', () => {
    const { body } = build({
      transcript: [
        user(
          { type: 'file', mimeType: 'image/webp', data: { type: 'uri', uri: 'https://x/y.webp' } },
          { type: 'structured', value: { a: [1, 2] } },
        ),
      ],
    });
    expect(messagesOf(body)[0]?.content).toEqual([
      { type: 'image', source: { type: 'url', url: 'https://x/y.webp' } },
      { type: 'text', text: '{"a":[1,2]}' },
    ]);
  });

  it('builds tool_result content from text, image and document parts; empty text sends no content', () => {
    const { body } = build({
      transcript: [
        {
          kind: 'assistant',
          parts: [{ type: 'tool-call', id: callId, name: 'shot', input: {} }],
        },
        {
          kind: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId,
              output: {
                type: 'parts',
                parts: [
                  text('Screenshot:'),
                  {
                    type: 'media',
                    modality: 'image',
                    mimeType: 'image/png',
                    data: { type: 'base64', data: 'iVBO' },
                  },
                  { type: 'file', mimeType: 'application/pdf', data: { type: 'base64', data: 'JVBE' } },
                ],
              },
              isError: false,
            },
          ],
        },
        {
          kind: 'tool',
          parts: [{ type: 'tool-result', callId, output: { type: 'text', text: '' }, isError: false }],
        },
      ],
    });
    const [result, empty] = messagesOf(body)[1]?.content ?? [];
    expect(result).toEqual({
      type: 'tool_result',
      tool_use_id: callId,
      content: [
        { type: 'text', text: 'Screenshot:' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' } },
      ],
    });
    expect(empty).toEqual({ type: 'tool_result', tool_use_id: callId });
  });

  it('sends citations and a programmatic caller back from metadata', () => {
    const citation = {
      type: 'char_location',
      cited_text: 'x',
      document_index: 0,
      start_char_index: 0,
      end_char_index: 1,
    };
    const caller = { type: 'code_execution_20250825', tool_id: 'srvtoolu_1' };
    const { body } = build({
      transcript: [
        user(text('q')),
        {
          kind: 'assistant',
          parts: [
            { type: 'text', text: 'Cited.', metadata: { 'anthropic.citations': [citation] } },
            {
              type: 'tool-call',
              id: callId,
              name: 'roll',
              input: {},
              metadata: { 'anthropic.caller': caller },
            },
          ],
        },
      ],
    });
    expect(messagesOf(body)[1]?.content).toEqual([
      { type: 'text', text: 'Cited.', citations: [citation] },
      { type: 'tool_use', id: callId, name: 'roll', input: {}, caller },
    ]);
  });
});

describe('message structure', () => {
  it('skips empty text and leaves out messages left empty', () => {
    const { body } = build({
      transcript: [user(text('Hi')), { kind: 'assistant', parts: [text('')] }, user(text(''), text('Again'))],
    });
    expect(messagesOf(body)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi' },
          { type: 'text', text: 'Again' },
        ],
      },
    ]);
  });

  it('puts tool results first when a user item precedes the tool item', () => {
    const { body } = build({
      transcript: [
        user(text('q')),
        { kind: 'assistant', parts: [{ type: 'tool-call', id: callId, name: 't', input: {} }] },
        user(text('also this')),
        {
          kind: 'tool',
          parts: [{ type: 'tool-result', callId, output: { type: 'text', text: 'ok' }, isError: false }],
        },
      ],
    });
    expect(messagesOf(body)[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: callId, content: 'ok' },
      { type: 'text', text: 'also this' },
    ]);
  });

  it('drops reasoning Anthropic did not sign, and other providers’ custom parts, with WARNs', () => {
    const { body, warnings } = build({
      transcript: [
        user(text('q')),
        {
          kind: 'assistant',
          parts: [
            { type: 'reasoning', text: 'unsigned', provider: 'anthropic' },
            { type: 'custom', provider: 'openai', kind: 'web_search_call', data: { id: 'ws_1' } },
            text('answer'),
          ],
        },
      ],
    });
    expect(messagesOf(body)[1]?.content).toEqual([{ type: 'text', text: 'answer' }]);
    expect(warnings.map((entry) => entry.fields.reason)).toEqual([
      'reasoning without the signature the provider requires',
      'openai web_search_call content has no anthropic equivalent',
    ]);
  });

  it('sends Anthropic custom parts verbatim and never writes cache markers into the transcript', () => {
    const block = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] };
    const transcript: Item[] = [
      user(text('q')),
      user({ type: 'custom', provider: 'anthropic', kind: block.type, data: block }),
    ];
    const { body } = build({ transcript, cache: {} });
    expect(messagesOf(body)[0]?.content[1]).toEqual({ ...block, cache_control: { type: 'ephemeral' } });
    expect(block).not.toHaveProperty('cache_control');
  });

  it('warns about non-text parts of instruction items', () => {
    const { body, warnings } = build({
      transcript: [
        {
          kind: 'context',
          parts: [
            text('ctx'),
            { type: 'file', mimeType: 'application/pdf', data: { type: 'base64', data: 'JV' } },
          ],
        },
        user(text('q')),
      ],
    });
    expect(body.system).toBe('ctx');
    expect(warnings).toHaveLength(1);
  });

  it('omits an empty system prompt, empty stop sequences and the stream flag of complete()', () => {
    const { body } = build({
      transcript: [{ kind: 'system', parts: [text('')] }, user(text('q'))],
      stopSequences: [],
    });
    expect(Object.keys(body)).toEqual(['model', 'max_tokens', 'messages']);
  });
});

describe('prompt caching', () => {
  it('uses the 5-minute marker without a ttl', () => {
    const { body } = build({
      transcript: [{ kind: 'system', parts: [text('s')] }, user(text('q'))],
      cache: { ttl: '5m' },
    });
    expect(body.system).toEqual([{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }]);
  });

  it('never exceeds 4 breakpoints when verbatim blocks already carry markers', () => {
    const marked = (index: number): Part => ({
      type: 'custom',
      provider: 'anthropic',
      kind: 'search_result',
      data: { type: 'search_result', source: `s${index}`, cache_control: { type: 'ephemeral' } },
    });
    const { body } = build({
      transcript: [{ kind: 'system', parts: [text('s')] }, user(marked(1), marked(2), text('q'))],
      tools: [{ name: 'a', inputSchema: { type: 'object' } }],
      cache: {},
    });
    expect(countCacheBreakpoints(body as never)).toBe(maxCacheBreakpoints);
    expect((body.tools as JsonObject[])[0]).toHaveProperty('cache_control');
    expect(body.system).toEqual([{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }]);
    expect(messagesOf(body)[0]?.content[2]).toEqual({ type: 'text', text: 'q' });
  });

  it('places three breakpoints at most on a request without markers', () => {
    const cacheable = {
      system: 'sys',
      tools: [{ name: 'a', input_schema: {} }],
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'q' }] }],
    };
    expect(applyCacheBreakpoints(cacheable, {})).toBe(3);
    expect(applyCacheBreakpoints(cacheable, {})).toBe(3);
  });
});

describe('provider options', () => {
  it('merges betas into one header, appends verbatim tools and body fields', () => {
    const context = createTestContext();
    const wire = buildRequest(
      {
        model: 'anthropic:claude-sonnet-4-5',
        maxOutputTokens: 100,
        transcript: [user(text('q'))],
        tools: [{ name: 'a', inputSchema: { type: 'object' } }],
        providerOptions: {
          anthropic: {
            betas: ['web-fetch-2025-09-10', 'context-1m-2025-08-07'],
            tools: [{ type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 2 }],
            body: { metadata: { user_id: 'u-1' } },
          },
        },
      },
      context,
      { betas: ['context-1m-2025-08-07'] },
    );
    expect(wire.headers).toEqual({ 'anthropic-beta': 'context-1m-2025-08-07,web-fetch-2025-09-10' });
    expect(wire.body.tools).toEqual([
      { name: 'a', input_schema: { type: 'object' } },
      { type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 2 },
    ]);
    expect(wire.body.metadata).toEqual({ user_id: 'u-1' });
  });
});
