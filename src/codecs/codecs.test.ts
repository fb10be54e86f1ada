/** The codecs by themselves: decoding edge cases and the opaque-field round trip. */
import { describe, expect, it } from 'vitest';
import type { CanonicalResponse } from '../core/request.ts';
import { serializeFrame } from './frames.ts';
import { codecs } from './index.ts';
import { RequestFieldError } from './fields.ts';
import { taggedOpaque, verbatimOpaque } from './opaque.ts';

/** The path a decoder refuses, or `undefined` when it decodes. */
function fieldOf(decode: () => unknown): string | undefined {
  try {
    decode();
  } catch (error) {
    if (error instanceof RequestFieldError) return error.field;
    throw error;
  }
  return undefined;
}

describe('decoding', () => {
  it('Anthropic system turns between messages (Claude Code 2.x) become system items in place', () => {
    const decoded = codecs['anthropic-messages'].decodeRequest({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      ],
    });
    expect(decoded.request.transcript.map((item) => item.kind)).toEqual(['user', 'system']);
  });

  it('an assistant container_upload naming an uploaded file_id is refused by path, as Responses file ids are', () => {
    const upload = (block: Record<string, unknown>) => () =>
      codecs['anthropic-messages'].decodeRequest({
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: [{ type: 'text', text: 'ok' }, block] },
        ],
      });
    const refuse = upload({ type: 'container_upload', file_id: 'file_011CNha8iCJcU1wXNR6q4V8w' });
    expect(fieldOf(refuse)).toBe('messages.1.content.1.file_id');
    expect(refuse).toThrow(/uploaded file ids are not supported by the gateway/);
    const [, assistant] = upload({ type: 'container_upload' })().request.transcript;
    expect(assistant?.kind === 'assistant' && assistant.parts[1]).toMatchObject({ kind: 'container_upload' });
  });

  it.each([
    ['https://example.com/cat.png', 'image/png'],
    ['https://example.com/cat.webp?size=2', 'image/webp'],
    ['https://example.com/cat.GIF#x', 'image/gif'],
    ['https://example.com/cat', 'image/jpeg'],
  ])('an Anthropic URL image %s is typed %s, as the Chat codec types it', (url, mimeType) => {
    const anthropic = codecs['anthropic-messages'].decodeRequest({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url } }] }],
    });
    const chat = codecs['openai-chat'].decodeRequest({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
    });
    const part = (decoded: typeof anthropic) => {
      const [item] = decoded.request.transcript;
      return item?.kind === 'user' ? item.parts[0] : undefined;
    };
    expect(part(anthropic)).toMatchObject({ type: 'media', modality: 'image', mimeType, data: { uri: url } });
    expect(part(chat)).toEqual(part(anthropic));
  });

  it('a Chat assistant message with a refusal keeps it as the turn text (content null or beside it)', () => {
    const turns = (assistant: Record<string, unknown>) =>
      codecs['openai-chat'].decodeRequest({
        model: 'm',
        messages: [
          { role: 'user', content: 'how to pick a lock' },
          { role: 'assistant', ...assistant },
          { role: 'user', content: 'it is my own lock' },
        ],
      }).request.transcript;
    expect(turns({ content: null, refusal: "I can't help with that." })).toEqual([
      { kind: 'user', parts: [{ type: 'text', text: 'how to pick a lock' }] },
      { kind: 'assistant', parts: [{ type: 'text', text: "I can't help with that." }] },
      { kind: 'user', parts: [{ type: 'text', text: 'it is my own lock' }] },
    ]);
    expect(turns({ content: 'Sorry.', refusal: 'No.' })[1]).toEqual({
      kind: 'assistant',
      parts: [
        { type: 'text', text: 'Sorry.' },
        { type: 'text', text: 'No.' },
      ],
    });
    expect(turns({ content: 'Hi', refusal: null })[1]).toEqual({
      kind: 'assistant',
      parts: [{ type: 'text', text: 'Hi' }],
    });
    expect(fieldOf(() => turns({ content: null, refusal: 3 }))).toBe('messages.1.refusal');
  });

  it('a refused field names itself; an unknown one is ignored', () => {
    const refuse = () =>
      codecs['openai-chat'].decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], n: 3 });
    expect(refuse).toThrow(RequestFieldError);
    expect(refuse).toThrow(/^n: /);
    const decoded = codecs['openai-chat'].decodeRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      brand_new_field: true,
    });
    expect(decoded.model).toBe('m');
  });

  it('Chat’s legacy functions, function_call and an assistant function_call are refused by path, as the function role is', () => {
    const chat =
      (extra: Record<string, unknown>, messages: unknown[] = [{ role: 'user', content: 'x' }]) =>
      () =>
        codecs['openai-chat'].decodeRequest({ model: 'm', messages, ...extra });
    const weather = { name: 'get_weather', parameters: { type: 'object', properties: {} } };
    expect(fieldOf(chat({ functions: [weather] }))).toBe('functions');
    expect(fieldOf(chat({ function_call: { name: 'get_weather' } }))).toBe('function_call');
    expect(fieldOf(chat({ functions: [weather], function_call: 'auto' }))).toBe('functions');
    expect(chat({ functions: [weather] })).toThrow(/^functions: .*declare them in tools/);
    const called = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{}' } },
    ];
    expect(fieldOf(chat({}, called))).toBe('messages.1.function_call');
    expect(fieldOf(chat({}, [...called, { role: 'function', name: 'get_weather', content: 'sunny' }]))).toBe(
      'messages.1.function_call',
    );
    expect(fieldOf(chat({}, [{ role: 'function', name: 'get_weather', content: 'sunny' }]))).toBe(
      'messages.0.role',
    );
    // Null, as some clients write an absent field, is absent.
    expect(fieldOf(chat({ functions: null, function_call: null }))).toBeUndefined();
  });

  it('Chat’s empty functions list, and function_call none or auto without functions, ask for nothing: taken as absent', () => {
    const chat = (extra: Record<string, unknown>) => () =>
      codecs['openai-chat'].decodeRequest({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        ...extra,
      });
    for (const extra of [
      { functions: [] },
      { function_call: 'none' },
      { function_call: 'auto' },
      { functions: [], function_call: 'none' },
      { functions: [], function_call: 'auto' },
    ]) {
      expect(fieldOf(chat(extra)), JSON.stringify(extra)).toBeUndefined();
      const decoded = chat(extra)() as { request: { tools?: unknown; toolChoice?: unknown } };
      expect(decoded.request.tools).toBeUndefined();
      expect(decoded.request.toolChoice).toBeUndefined();
    }
    // Naming a function still asks for a call the request cannot make.
    expect(fieldOf(chat({ functions: [], function_call: { name: 'get_weather' } }))).toBe('function_call');
    expect(fieldOf(chat({ function_call: 'required' }))).toBe('function_call');
  });

  it('Gemini calls without ids get stable ids and responses answer them by name, in order', () => {
    const decoded = codecs.gemini.decodeRequest(
      {
        contents: [
          { role: 'user', parts: [{ text: 'Weather?' }] },
          {
            role: 'model',
            parts: [
              { functionCall: { name: 'w', args: { city: 'A' } } },
              { functionCall: { name: 'w', args: { city: 'B' } } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'w', response: { output: 'a' } } },
              { functionResponse: { name: 'w', response: { output: 'b' } } },
            ],
          },
        ],
      },
      { model: 'gemini-x', stream: false },
    );
    const [, assistant, tool] = decoded.request.transcript;
    const callIds = assistant!.parts.map((part) => (part.type === 'tool-call' ? part.id : ''));
    const answered = tool!.parts.map((part) => (part.type === 'tool-result' ? part.callId : ''));
    expect(callIds).toEqual(['gc_1_0', 'gc_1_1']);
    expect(answered).toEqual(callIds);
  });
});

describe('reasoning turned off', () => {
  const options = { model: 'm', stream: false };
  const user = [{ role: 'user', content: 'Hi' }];

  it('is effort none from every protocol: Gemini budget 0, Anthropic disabled, Chat and Responses effort none', () => {
    const gemini = (thinkingConfig: Record<string, unknown>) =>
      codecs.gemini.decodeRequest(
        { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { thinkingConfig } },
        options,
      ).request.reasoning;
    expect(gemini({ thinkingBudget: 0 })).toEqual({ effort: 'none' });
    expect(gemini({ thinkingBudget: 0, includeThoughts: true })).toEqual({ effort: 'none' });
    expect(gemini({ thinkingBudget: -1 })).toBeUndefined();
    expect(gemini({ thinkingBudget: 512 })).toEqual({ budgetTokens: 512, includeThoughts: false });
    const anthropic = codecs['anthropic-messages'].decodeRequest({
      model: 'm',
      max_tokens: 10,
      thinking: { type: 'disabled' },
      messages: user,
    });
    expect(anthropic.request.reasoning).toEqual({ effort: 'none' });
    const chat = codecs['openai-chat'].decodeRequest({
      model: 'm',
      messages: user,
      reasoning_effort: 'none',
    });
    expect(chat.request.reasoning).toEqual({ effort: 'none' });
    const responses = codecs['openai-responses'].decodeRequest({
      model: 'm',
      input: 'Hi',
      reasoning: { effort: 'none' },
    });
    expect(responses.request.reasoning).toEqual({ effort: 'none' });
  });
});

describe('the highest efforts (xhigh, max)', () => {
  const user = [{ role: 'user', content: 'Hi' }];

  it('xhigh is xhigh and max is max from Chat, Responses (Codex) and Anthropic clients (each adapter sends its own most for max)', () => {
    const chat = (reasoning_effort: string) =>
      codecs['openai-chat'].decodeRequest({ model: 'm', messages: user, reasoning_effort }).request.reasoning;
    expect(chat('xhigh')).toEqual({ effort: 'xhigh' });
    expect(chat('max')).toEqual({ effort: 'max' });
    const responses = (effort: string) =>
      codecs['openai-responses'].decodeRequest({
        model: 'm',
        input: 'Hi',
        reasoning: { effort, summary: 'auto' },
      }).request.reasoning;
    expect(responses('xhigh')).toEqual({ effort: 'xhigh' });
    expect(responses('max')).toEqual({ effort: 'max' });
    const anthropic = (effort: string) =>
      codecs['anthropic-messages'].decodeRequest({
        model: 'm',
        max_tokens: 10,
        thinking: { type: 'adaptive' },
        output_config: { effort },
        messages: user,
      }).request.reasoning;
    expect(anthropic('xhigh')).toEqual({ effort: 'xhigh', includeThoughts: true });
    expect(anthropic('max')).toEqual({ effort: 'max', includeThoughts: true });
  });

  it('a level beyond them is still refused by path', () => {
    expect(
      fieldOf(() =>
        codecs['openai-chat'].decodeRequest({ model: 'm', messages: user, reasoning_effort: 'ultra' }),
      ),
    ).toBe('reasoning_effort');
    expect(
      fieldOf(() =>
        codecs['openai-responses'].decodeRequest({ model: 'm', input: 'Hi', reasoning: { effort: 'ultra' } }),
      ),
    ).toBe('reasoning.effort');
  });
});

describe('Anthropic effort and adaptive thinking', () => {
  const anthropic = (fields: Record<string, unknown>) =>
    codecs['anthropic-messages'].decodeRequest({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
      ...fields,
    }).request.reasoning;

  it('output_config.effort without thinking is the effort without thinking (thinking: false); with adaptive, the effort', () => {
    for (const effort of ['low', 'medium', 'high'])
      expect(anthropic({ output_config: { effort } })).toEqual({ effort, thinking: false });
    expect(anthropic({ output_config: { effort: 'max' } })).toEqual({ effort: 'max', thinking: false });
    expect(anthropic({ output_config: { format: { type: 'json_schema', schema: {} } } })).toBeUndefined();
    // Adaptive thinking without an effort leaves it unset (the API's default), none injected.
    expect(anthropic({ thinking: { type: 'adaptive' } })).toEqual({ includeThoughts: true });
    expect(anthropic({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } })).toEqual({
      effort: 'low',
      includeThoughts: true,
    });
  });
});

describe('decoding never drops what the client sent', () => {
  const gemini = (body: Record<string, unknown>) =>
    codecs.gemini.decodeRequest(
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], ...body },
      { model: 'gemini-x', stream: false },
    );

  it('a Gemini systemInstruction given as a plain string (as the SDKs accept it) is the system prompt', () => {
    const [system] = gemini({ systemInstruction: 'Be a pirate' }).request.transcript;
    expect(system).toEqual({ kind: 'system', parts: [{ type: 'text', text: 'Be a pirate' }] });
  });

  it('a Gemini systemInstruction with a media part, or of another type, is refused by path', () => {
    const media = {
      parts: [{ text: 'Look' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
    };
    expect(fieldOf(() => gemini({ systemInstruction: media }))).toBe('systemInstruction.parts.1');
    expect(fieldOf(() => gemini({ systemInstruction: 5 }))).toBe('systemInstruction');
    const [system] = gemini({ systemInstruction: { parts: [{ text: 'A' }, { text: 'B' }] } }).request
      .transcript;
    expect(system).toEqual({ kind: 'system', parts: [{ type: 'text', text: 'A\n\nB' }] });
  });

  it('stop sequences that are not strings are refused by index, never stringified', () => {
    expect(fieldOf(() => gemini({ generationConfig: { stopSequences: ['END', { a: 1 }] } }))).toBe(
      'generationConfig.stopSequences.1',
    );
    const anthropic = (stops: unknown[]) => () =>
      codecs['anthropic-messages'].decodeRequest({
        model: 'm',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'Hi' }],
        stop_sequences: stops,
      });
    expect(fieldOf(anthropic([5]))).toBe('stop_sequences.0');
    expect(anthropic(['END'])().request.stopSequences).toEqual(['END']);
  });

  it.each([
    ['openai-chat', { max_tokens: 1e20 }, 'max_tokens'],
    ['openai-chat', { top_p: 5 }, 'top_p'],
    ['openai-chat', { temperature: -1 }, 'temperature'],
    ['openai-responses', { max_output_tokens: 2 ** 60 }, 'max_output_tokens'],
    ['openai-responses', { temperature: 2.5 }, 'temperature'],
    ['anthropic-messages', { top_k: -3 }, 'top_k'],
    ['anthropic-messages', { top_k: 1.5 }, 'top_k'],
    ['anthropic-messages', { top_p: 1.01 }, 'top_p'],
    ['gemini', { generationConfig: { topP: 5 } }, 'generationConfig.topP'],
    ['gemini', { generationConfig: { topK: 0 } }, 'generationConfig.topK'],
    ['gemini', { generationConfig: { maxOutputTokens: 1e20 } }, 'generationConfig.maxOutputTokens'],
  ] as const)('%s: %j out of range is refused naming the client’s own field', (protocol, extra, field) => {
    const bodies = {
      'openai-chat': { model: 'm', messages: [{ role: 'user', content: 'Hi' }] },
      'openai-responses': { model: 'm', input: 'Hi' },
      'anthropic-messages': { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] },
      gemini: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
    };
    const decode = () =>
      codecs[protocol].decodeRequest({ ...bodies[protocol], ...extra }, { model: 'm', stream: false });
    expect(fieldOf(decode)).toBe(field);
  });

  it('a tool choice asking for a call with no tools, or naming a missing tool, is refused by field', () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const chat = (extra: Record<string, unknown>) => () =>
      codecs['openai-chat'].decodeRequest({
        model: 'm',
        messages: [{ role: 'user', content: 'Hi' }],
        ...extra,
      });
    expect(fieldOf(chat({ tool_choice: 'required' }))).toBe('tool_choice');
    expect(fieldOf(chat({ tools, tool_choice: { type: 'function', function: { name: 'nope' } } }))).toBe(
      'tool_choice',
    );
    expect(chat({ tools, tool_choice: 'required' })().request.toolChoice).toBe('required');
    const anthropic = () =>
      codecs['anthropic-messages'].decodeRequest({
        model: 'm',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'Hi' }],
        tool_choice: { type: 'any' },
      });
    expect(fieldOf(anthropic)).toBe('tool_choice');
    const geminiTools = [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object' } }] }];
    const config = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['nope'] } };
    expect(fieldOf(() => gemini({ tools: geminiTools, toolConfig: config }))).toBe('toolConfig');
  });

  it('Gemini ANY with several allowedFunctionNames offers only those tools; an unknown name is refused', () => {
    const declarations = ['get_weather', 'get_time', 'send_mail'].map((name) => ({
      name,
      parameters: { type: 'object' },
    }));
    const decode = (allowedFunctionNames: unknown) =>
      codecs.gemini.decodeRequest(
        {
          contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
          tools: [{ functionDeclarations: declarations }],
          toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames } },
        },
        { model: 'm', stream: false },
      ).request;
    const restricted = decode(['send_mail', 'get_weather']);
    expect(restricted.toolChoice).toBe('required');
    expect(restricted.tools?.map((tool) => tool.name)).toEqual(['get_weather', 'send_mail']);
    expect(decode([]).tools).toHaveLength(3);
    expect(decode(['get_time']).toolChoice).toEqual({ type: 'tool', name: 'get_time' });
    expect(fieldOf(() => decode(['get_time', 'nope']))).toBe(
      'toolConfig.functionCallingConfig.allowedFunctionNames.1',
    );
    expect(fieldOf(() => decode('get_time'))).toBe('toolConfig.functionCallingConfig.allowedFunctionNames');
    const validated = codecs.gemini.decodeRequest(
      {
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        tools: [{ functionDeclarations: declarations }],
        toolConfig: { functionCallingConfig: { mode: 'VALIDATED', allowedFunctionNames: ['get_time'] } },
      },
      { model: 'm', stream: false },
    ).request;
    // VALIDATED lets the model answer in text: no call is forced, only the allowed tools are offered.
    expect(validated.toolChoice).toBe('auto');
    expect(validated.tools?.map((tool) => tool.name)).toEqual(['get_time']);
  });

  it('Gemini values outside their enums are refused by path (role, function-calling mode, thinking level)', () => {
    expect(fieldOf(() => gemini({ contents: [{ role: 'bogus', parts: [{ text: 'Hi' }] }] }))).toBe(
      'contents.0.role',
    );
    expect(fieldOf(() => gemini({ toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } }))).toBe(
      'toolConfig.functionCallingConfig.mode',
    );
    expect(fieldOf(() => gemini({ generationConfig: { thinkingConfig: { thinkingLevel: 'ULTRA' } } }))).toBe(
      'generationConfig.thinkingConfig.thinkingLevel',
    );
    const high = gemini({ generationConfig: { thinkingConfig: { thinkingLevel: 'HIGH' } } });
    expect(high.request.reasoning).toEqual({ effort: 'high', includeThoughts: false });
  });

  it('Responses text / text.format / reasoning and Chat modalities of the wrong type are refused, not ignored', () => {
    const responses = (extra: Record<string, unknown>) => () =>
      codecs['openai-responses'].decodeRequest({ model: 'm', input: 'Hi', ...extra });
    expect(fieldOf(responses({ text: 'json' }))).toBe('text');
    expect(fieldOf(responses({ text: { format: 'json' } }))).toBe('text.format');
    expect(fieldOf(responses({ reasoning: 'high' }))).toBe('reasoning');
    expect(responses({ reasoning: { effort: 'high' } })().request.reasoning).toMatchObject({
      effort: 'high',
    });
    const chat = () =>
      codecs['openai-chat'].decodeRequest({
        model: 'm',
        messages: [{ role: 'user', content: 'Hi' }],
        modalities: 'audio',
      });
    expect(fieldOf(chat)).toBe('modalities');
  });

  it.each([
    ['an object', { text: 'IMPORTANT RESULT' }],
    ['a number', 42],
  ])(
    'an Anthropic tool_result whose content is %s is refused by path, not sent as an empty output',
    (_, content) => {
      const decode = () =>
        codecs['anthropic-messages'].decodeRequest({
          model: 'm',
          max_tokens: 10,
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 't', input: {} }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content }] },
          ],
        });
      expect(fieldOf(decode)).toBe('messages.2.content.0.content');
    },
  );
});

describe('opaque fields', () => {
  it('the gateway tags a payload with its provider and metadata, and reads it back', () => {
    const payload = {
      provider: 'gemini',
      signature: 'sig',
      data: 'enc',
      metadata: { 'responses.item_id': 'rs_1' },
    };
    expect(taggedOpaque.unwrap(taggedOpaque.wrap(payload))).toEqual(payload);
    expect(taggedOpaque.unwrap('plain-signature')).toEqual({ signature: 'plain-signature' });
    expect(verbatimOpaque.wrap({ provider: 'x', signature: 'raw' })).toBe('raw');
  });

  it('a wrapped value cannot carry the library’s own metadata (switchyard.*) into a part', () => {
    const forged = taggedOpaque.wrap({
      provider: 'gemini',
      signature: 'sig',
      metadata: { 'switchyard.arguments_text': '{"rm":"-rf"}', 'gemini.kept': 'x' } as never,
    });
    expect(taggedOpaque.unwrap(forged)).toEqual({
      provider: 'gemini',
      signature: 'sig',
      metadata: { 'gemini.kept': 'x' },
    });
  });
});

describe('tool-call arguments a provider left unparseable', () => {
  const response = {
    requestId: 'req_1' as never,
    model: 'openai:gpt-5-mini',
    provider: 'openai',
    finishReason: 'tool-calls' as const,
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    latencyMs: 1,
    content: [
      {
        type: 'tool-call' as const,
        id: 'call_1' as never,
        name: 'weather',
        input: { city: 'Pa' },
        incomplete: true as const,
        metadata: { 'switchyard.raw_input': '{"city":"Pa' },
      },
    ],
  };

  it('Chat and Responses clients get the provider’s own text (as a streamed client saw it), not the repair', () => {
    const chat = codecs['openai-chat'].encodeResponse(response as never, { model: 'm' }) as {
      choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> } }>;
    };
    expect(chat.choices[0]!.message.tool_calls[0]!.function.arguments).toBe('{"city":"Pa');
    const responses = codecs['openai-responses'].encodeResponse(response as never, { model: 'm' }) as {
      output: Array<{ type: string; arguments?: string }>;
    };
    expect(responses.output.find((item) => item.type === 'function_call')?.arguments).toBe('{"city":"Pa');
  });

  it('the same text sent back in the history is taken (as OpenAI takes it): repaired input, raw text kept', () => {
    const decoded = codecs['openai-chat'].decodeRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Pa' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    });
    expect(decoded.request.transcript[1]!.parts[0]).toMatchObject({
      type: 'tool-call',
      input: { city: 'Pa' },
      incomplete: true,
      metadata: { 'switchyard.raw_input': '{"city":"Pa' },
    });
    const responses = codecs['openai-responses'].decodeRequest({
      model: 'm',
      input: [
        { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: 'not json' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
      ],
    });
    expect(responses.request.transcript[0]!.parts[0]).toMatchObject({ input: {}, incomplete: true });
  });
});

describe('finish reasons of the client’s own protocol pass through', () => {
  const response = (
    finishReason: CanonicalResponse['finishReason'],
    rawFinishReason?: string,
  ): CanonicalResponse => ({
    requestId: 'r' as never,
    model: 'm',
    provider: 'p',
    content: [{ type: 'text', text: 'Some text' }],
    finishReason,
    ...(rawFinishReason === undefined ? {} : { rawFinishReason }),
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    latencyMs: 0,
  });

  it.each([
    ['pause_turn', 'completed', 'pause_turn'],
    ['model_context_window_exceeded', 'max-tokens', 'model_context_window_exceeded'],
    ['length', 'max-tokens', 'max_tokens'],
    [undefined, 'content-filter', 'refusal'],
  ] as const)(
    'Anthropic: an upstream’s %s (canonical %s) is stop_reason %s, whole and streamed',
    (raw, canonical, expected) => {
      const codec = codecs['anthropic-messages'];
      const whole = codec.encodeResponse(response(canonical, raw), { model: 'm' }) as { stop_reason: string };
      expect(whole.stop_reason).toBe(expected);
      const frames = codec
        .createStreamEncoder({ model: 'm' })
        .event({ type: 'finish', response: response(canonical, raw) });
      const text = frames.map(serializeFrame).join('');
      expect(text).toContain(`"stop_reason":"${expected}"`);
    },
  );

  it.each([
    ['RECITATION', 'content-filter', 'RECITATION'],
    ['LANGUAGE', 'other', 'LANGUAGE'],
    ['end_turn', 'completed', 'STOP'],
  ] as const)('Gemini: an upstream’s %s (canonical %s) is finishReason %s', (raw, canonical, expected) => {
    const whole = codecs.gemini.encodeResponse(response(canonical, raw), { model: 'm' }) as {
      candidates: Array<{ finishReason: string }>;
    };
    expect(whole.candidates[0]!.finishReason).toBe(expected);
  });
});

describe('Responses streams number their events in order', () => {
  const empty: CanonicalResponse = {
    requestId: 'r' as never,
    model: 'm',
    provider: 'p',
    content: [],
    finishReason: 'completed',
    usage: { input: 1, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    latencyMs: 0,
  };
  const numbers = (
    frames: ReturnType<ReturnType<(typeof codecs)['openai-responses']['createStreamEncoder']>['event']>,
  ) =>
    frames.map((frame) => {
      const [, data] = /^data: (.*)$/m.exec(serializeFrame(frame))!;
      const { type, sequence_number } = JSON.parse(data!) as { type: string; sequence_number: number };
      return `${type}#${sequence_number}`;
    });

  it('a reply with no output item: created #0, in_progress #1, completed #2 (not completed #0)', () => {
    const encoder = codecs['openai-responses'].createStreamEncoder({ model: 'm' });
    expect(numbers(encoder.event({ type: 'finish', response: empty }))).toEqual([
      'response.created#0',
      'response.in_progress#1',
      'response.completed#2',
    ]);
  });

  it('a failure before any item: failed after the opening events', () => {
    const encoder = codecs['openai-responses'].createStreamEncoder({ model: 'm' });
    expect(numbers(encoder.error({ status: 502, errorClass: 'network', message: 'cut' }))).toEqual([
      'response.created#0',
      'response.in_progress#1',
      'response.failed#2',
    ]);
  });
});

describe('Gemini error bodies', () => {
  it("status is always a canonical Google name; the gateway's own code goes in an ErrorInfo reason", () => {
    const body = (code?: string) =>
      codecs.gemini.encodeError({
        status: 502,
        errorClass: 'server_error',
        message: 'x',
        ...(code ? { code } : {}),
      }).body as { error: Record<string, unknown> };
    expect(body('model_failure').error).toMatchObject({
      status: 'UNAVAILABLE',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'model_failure' }],
    });
    expect(body('RESOURCE_EXHAUSTED').error).toEqual({
      code: 502,
      message: 'x',
      status: 'RESOURCE_EXHAUSTED',
    });
    expect(body().error).toEqual({ code: 502, message: 'x', status: 'UNAVAILABLE' });
  });

  it("an upstream's 529 (overloaded) is Google's 503 UNAVAILABLE, never a bare 529 UNKNOWN", () => {
    const encoded = codecs.gemini.encodeError({
      status: 529,
      errorClass: 'server_error',
      message: 'overloaded',
      retryAfterSeconds: 2,
    });
    expect(encoded.status).toBe(503);
    expect(encoded.body).toEqual({ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } });
    expect(encoded.headers).toMatchObject({ 'retry-after': '2' });
  });
});

describe('usage details the canonical usage carries, and none it does not', () => {
  const usage = { input: 10, cacheRead: 50, cacheWrite: 300, cacheWrite1h: 200, output: 5, reasoning: 0 };
  const response = {
    content: [{ type: 'text', text: 'hi' }],
    finishReason: 'completed',
    usage,
  } as unknown as CanonicalResponse;
  const context = { model: 'm', opaque: taggedOpaque };

  it('Anthropic: a cache write split by lifetime in cache_creation, whole and streamed (message_start, message_delta)', () => {
    const cacheCreation = { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 };
    const whole = codecs['anthropic-messages'].encodeResponse(response, context) as { usage: unknown };
    expect(whole.usage).toMatchObject({ cache_creation_input_tokens: 300, cache_creation: cacheCreation });
    const encoder = codecs['anthropic-messages'].createStreamEncoder({ ...context, startUsage: usage });
    const frames = [
      { type: 'message-start', requestId: 'req_1', model: 'anthropic:claude', provider: 'anthropic' },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'hi' },
      { type: 'text-end', index: 0 },
      { type: 'finish', response },
    ].flatMap((event) => encoder.event(event as never));
    const usages = frames
      .map((frame) => JSON.parse('data' in frame ? frame.data : '{}') as Record<string, unknown>)
      .flatMap((data) =>
        data.type === 'message_start'
          ? [(data.message as { usage: unknown }).usage]
          : data.type === 'message_delta'
            ? [data.usage]
            : [],
      );
    expect(usages).toMatchObject([{ cache_creation: cacheCreation }, { cache_creation: cacheCreation }]);
    const none = codecs['anthropic-messages'].encodeResponse(
      { ...response, usage: { ...usage, cacheWrite: 0, cacheWrite1h: undefined } },
      context,
    ) as { usage: Record<string, unknown> };
    expect(none.usage.cache_creation).toBeUndefined();
  });

  it('Gemini: no promptTokensDetails invented (the usage has no split by modality)', () => {
    const whole = codecs.gemini.encodeResponse(response, context) as {
      usageMetadata: Record<string, unknown>;
    };
    expect(whole.usageMetadata.promptTokenCount).toBe(360);
    expect(whole.usageMetadata).not.toHaveProperty('promptTokensDetails');
  });
});
