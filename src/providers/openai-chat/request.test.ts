import { describe, expect, it } from 'vitest';
import { toolCallId } from '../../core/ids.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { Item } from '../../core/transcript.ts';
import { presets } from '../openai-compatible/presets.ts';
import { defaultQuirks, mergeQuirks, openaiQuirks } from './quirks.ts';
import { buildRequest, convertToolChoice, convertTools } from './request.ts';
import { createTestContext } from './test-support.ts';

const userHi: Item = { kind: 'user', parts: [{ type: 'text', text: 'Hi' }] };

const callId = toolCallId('tu_01JCALL00000000000000000AA');
const pixel = 'iVBORw0KGgo=';

const weatherTool = {
  name: 'weather',
  description: 'Current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** A transcript touching every role and most part types. */
const transcript: Item[] = [
  { kind: 'system', parts: [{ type: 'text', text: 'You are terse.' }] },
  { kind: 'developer', parts: [{ type: 'text', text: 'Prefer metric units.' }] },
  { kind: 'context', parts: [{ type: 'text', text: 'User is in Paris.' }] },
  {
    kind: 'user',
    parts: [
      { type: 'text', text: 'Weather here? See the photo and the report.' },
      {
        type: 'media',
        modality: 'image',
        mimeType: 'image/png',
        data: { type: 'uri', uri: 'https://x.test/a.png' },
      },
      { type: 'media', modality: 'image', mimeType: 'image/png', data: { type: 'base64', data: pixel } },
      {
        type: 'file',
        mimeType: 'application/pdf',
        filename: 'report.pdf',
        data: { type: 'base64', data: 'JVBERg==' },
      },
    ],
  },
  {
    kind: 'assistant',
    parts: [
      { type: 'text', text: 'Let me check.' },
      {
        type: 'tool-call',
        id: callId,
        name: 'weather',
        input: { city: 'Paris', days: [1, 2], deep: { a: null } },
      },
    ],
  },
  {
    kind: 'tool',
    parts: [
      { type: 'tool-result', callId, output: { type: 'json', value: { celsius: 21 } }, isError: false },
    ],
  },
  { kind: 'assistant', parts: [{ type: 'text', text: '21°C.' }] },
  { kind: 'user', parts: [{ type: 'text', text: 'And tomorrow?' }] },
];

function request(extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { model: 'openai:gpt-4.1-mini', transcript, maxOutputTokens: 512, ...extra };
}

describe('buildRequest: OpenAI golden bodies', () => {
  it('builds every role, part and option of a streamed call', () => {
    const context = createTestContext({ stream: true });
    const wire = buildRequest(
      request({
        tools: [weatherTool],
        toolChoice: 'auto',
        parallelToolCalls: false,
        temperature: 0.2,
        topP: 0.9,
        stopSequences: ['END'],
        outputSchema: {
          name: 'forecast',
          schema: { type: 'object', properties: { celsius: { type: 'number' } } },
        },
      }),
      context,
      { quirks: openaiQuirks, strictTools: false },
    );
    expect(wire.path).toBe('/chat/completions');
    expect(context.warnings).toEqual([]);
    expect(wire.body).toMatchInlineSnapshot(`
      {
        "max_completion_tokens": 512,
        "messages": [
          {
            "content": "You are terse.

      Prefer metric units.

      User is in Paris.",
            "role": "system",
          },
          {
            "content": [
              {
                "text": "Weather here? See the photo and the report.",
                "type": "text",
              },
              {
                "image_url": {
                  "url": "https://x.test/a.png",
                },
                "type": "image_url",
              },
              {
                "image_url": {
                  "url": "data:image/png;base64,iVBORw0KGgo=",
                },
                "type": "image_url",
              },
              {
                "file": {
                  "file_data": "data:application/pdf;base64,JVBERg==",
                  "filename": "report.pdf",
                },
                "type": "file",
              },
            ],
            "role": "user",
          },
          {
            "content": "Let me check.",
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"city":"Paris","days":[1,2],"deep":{"a":null}}",
                  "name": "weather",
                },
                "id": "tu_01JCALL00000000000000000AA",
                "type": "function",
              },
            ],
          },
          {
            "content": "{"celsius":21}",
            "role": "tool",
            "tool_call_id": "tu_01JCALL00000000000000000AA",
          },
          {
            "content": "21°C.",
            "role": "assistant",
          },
          {
            "content": "And tomorrow?",
            "role": "user",
          },
        ],
        "model": "gpt-4.1-mini",
        "parallel_tool_calls": false,
        "response_format": {
          "json_schema": {
            "name": "forecast",
            "schema": {
              "additionalProperties": false,
              "properties": {
                "celsius": {
                  "type": [
                    "number",
                    "null",
                  ],
                },
              },
              "required": [
                "celsius",
              ],
              "type": "object",
            },
            "strict": true,
          },
          "type": "json_schema",
        },
        "stop": [
          "END",
        ],
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "temperature": 0.2,
        "tool_choice": "auto",
        "tools": [
          {
            "function": {
              "description": "Current weather for a city",
              "name": "weather",
              "parameters": {
                "properties": {
                  "city": {
                    "type": "string",
                  },
                },
                "required": [
                  "city",
                ],
                "type": "object",
              },
            },
            "type": "function",
          },
        ],
        "top_p": 0.9,
      }
    `);
  });

  it('uses the developer role, reasoning_effort and no sampling parameters for gpt-5', () => {
    const context = createTestContext({ model: 'gpt-5-mini' });
    const wire = buildRequest(
      {
        model: 'openai:gpt-5-mini',
        transcript: [transcript[0] as Item, { kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        maxOutputTokens: 2048,
        temperature: 0.5,
        reasoning: { effort: 'minimal' },
      },
      context,
      { quirks: openaiQuirks, strictTools: false },
    );
    expect(wire.body).toMatchInlineSnapshot(`
      {
        "max_completion_tokens": 2048,
        "messages": [
          {
            "content": "You are terse.",
            "role": "developer",
          },
          {
            "content": "Hi",
            "role": "user",
          },
        ],
        "model": "gpt-5-mini",
        "reasoning_effort": "minimal",
      }
    `);
    expect(context.warnings).toEqual([
      {
        message: 'dropped a sampling parameter the model rejects',
        fields: { parameter: 'temperature', model: 'gpt-5-mini' },
      },
    ]);
  });

  it('leaves out stop for gpt-5, o3 and o4 models, which refuse it ("Unsupported parameter: \'stop\'"): the reply is cut at them here', () => {
    for (const model of ['gpt-5-mini', 'gpt-5.2', 'o3', 'o4-mini']) {
      const context = createTestContext({ model });
      const wire = buildRequest(
        { model: `openai:${model}`, transcript: [userHi], maxOutputTokens: 64, stopSequences: ['END'] },
        context,
        { quirks: openaiQuirks, strictTools: false },
      );
      expect(wire.body, model).not.toHaveProperty('stop');
      expect(context.warnings, model).toEqual([]);
    }
    const older = createTestContext({ model: 'gpt-4.1-mini' });
    const kept = buildRequest(
      { model: 'openai:gpt-4.1-mini', transcript: [userHi], maxOutputTokens: 64, stopSequences: ['END'] },
      older,
      { quirks: openaiQuirks, strictTools: false },
    );
    expect(kept.body.stop).toEqual(['END']);
  });

  it('sends OpenAI at most 4 stop sequences (the rest are cut at here, so the answer never runs on)', () => {
    const build = (stopSequences: string[]) =>
      buildRequest(
        { model: 'openai:gpt-4.1-mini', transcript: [userHi], maxOutputTokens: 64, stopSequences },
        createTestContext({ model: 'gpt-4.1-mini' }),
        { quirks: openaiQuirks, strictTools: false },
      );
    expect(build(['a', 'b', 'c', 'd']).body.stop).toEqual(['a', 'b', 'c', 'd']);
    expect(build(['a', 'b', 'c', 'd', 'e']).body.stop).toEqual(['a', 'b', 'c', 'd']);
    // A compatible host without the limit takes them all.
    const host = buildRequest(
      {
        model: 'local:m',
        transcript: [userHi],
        maxOutputTokens: 64,
        stopSequences: ['a', 'b', 'c', 'd', 'e'],
      },
      createTestContext({ model: 'm' }),
      { quirks: defaultQuirks, strictTools: false },
    );
    expect(host.body.stop).toHaveLength(5);
  });

  it('sends strict function tools only when asked and the host takes them', () => {
    expect(convertTools([weatherTool], true)[0]?.function.strict).toBe(true);
    expect(convertTools([weatherTool])[0]?.function).not.toHaveProperty('strict');
  });

  it('maps every tool choice', () => {
    expect(convertToolChoice('auto')).toBe('auto');
    expect(convertToolChoice('none')).toBe('none');
    expect(convertToolChoice('required')).toBe('required');
    expect(convertToolChoice({ type: 'tool', name: 'weather' })).toEqual({
      type: 'function',
      function: { name: 'weather' },
    });
  });

  it('merges providerOptions for this adapter over the body', () => {
    const wire = buildRequest(
      request({
        providerOptions: { openai: { seed: 7, service_tier: 'flex' }, groq: { ignored: true } },
      }),
      createTestContext(),
      { quirks: openaiQuirks, strictTools: false },
    );
    expect(wire.body).toMatchObject({ seed: 7, service_tier: 'flex' });
    expect(wire.body).not.toHaveProperty('ignored');
    // Streaming is the call's choice: complete() never streams.
    expect(wire.body).not.toHaveProperty('stream');
  });
});

describe('convertMessages: instructions', () => {
  const build = (items: Item[]) =>
    buildRequest({ model: 'openai:gpt-4.1', transcript: items, maxOutputTokens: 10 }, createTestContext(), {
      quirks: openaiQuirks,
      strictTools: false,
    }).body.messages as Array<{ role: string; content: unknown }>;
  const user: Item = { kind: 'user', parts: [{ type: 'text', text: 'Hi' }] };

  it('sends no instruction message for an empty system item', () => {
    expect(build([{ kind: 'system', parts: [{ type: 'text', text: '' }] }, user])).toEqual([
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('joins the leading instruction items into one message; OpenAI keeps later ones in place', () => {
    const messages = build([
      { kind: 'system', parts: [{ type: 'text', text: 'A' }] },
      { kind: 'developer', parts: [{ type: 'text', text: 'B' }] },
      user,
      { kind: 'context', parts: [{ type: 'text', text: 'C' }] },
      { kind: 'system', parts: [{ type: 'text', text: 'D' }] },
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'A\n\nB' },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'C' },
      { role: 'system', content: 'D' },
    ]);
  });

  it('drops non-text instruction parts with a WARN', () => {
    const context = createTestContext();
    const image = {
      type: 'media',
      modality: 'image',
      mimeType: 'image/png',
      data: { type: 'base64', data: pixel },
    };
    buildRequest(
      {
        model: 'openai:gpt-4.1',
        transcript: [{ kind: 'system', parts: [image as never] }, user],
        maxOutputTokens: 5,
      },
      context,
      { quirks: openaiQuirks, strictTools: false },
    );
    expect(context.warnings[0]?.fields).toMatchObject({
      blockType: 'media',
      reason: 'instructions carry text only',
    });
  });
});

describe('convertMessages: parts and tool results', () => {
  function messagesOf(items: Item[], quirks = openaiQuirks, provider = 'openai') {
    const context = createTestContext({ provider });
    const body = buildRequest({ model: `${provider}:m`, transcript: items, maxOutputTokens: 5 }, context, {
      quirks,
      strictTools: false,
    }).body;
    return { messages: body.messages as unknown[], warnings: context.warnings, context };
  }

  it('sends tool-result images after the tool messages, in a user message', () => {
    const { messages } = messagesOf([
      { kind: 'assistant', parts: [{ type: 'tool-call', id: callId, name: 'screenshot', input: {} }] },
      {
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId,
            output: {
              type: 'parts',
              parts: [
                { type: 'text', text: 'Captured.' },
                {
                  type: 'media',
                  modality: 'image',
                  mimeType: 'image/png',
                  data: { type: 'base64', data: pixel },
                },
              ],
            },
            isError: false,
          },
        ],
      },
    ]);
    expect(messages).toMatchInlineSnapshot(`
      [
        {
          "content": null,
          "role": "assistant",
          "tool_calls": [
            {
              "function": {
                "arguments": "{}",
                "name": "screenshot",
              },
              "id": "tu_01JCALL00000000000000000AA",
              "type": "function",
            },
          ],
        },
        {
          "content": "Captured.",
          "role": "tool",
          "tool_call_id": "tu_01JCALL00000000000000000AA",
        },
        {
          "content": [
            {
              "text": "Attachments of tool result tu_01JCALL00000000000000000AA:",
              "type": "text",
            },
            {
              "image_url": {
                "url": "data:image/png;base64,iVBORw0KGgo=",
              },
              "type": "image_url",
            },
          ],
          "role": "user",
        },
      ]
    `);
  });

  it('prefixes error results and stringifies JSON results', () => {
    const { messages } = messagesOf([
      { kind: 'assistant', parts: [{ type: 'tool-call', id: callId, name: 'f', input: {} }] },
      {
        kind: 'tool',
        parts: [{ type: 'tool-result', callId, output: { type: 'text', text: 'boom' }, isError: true }],
      },
    ]);
    expect(messages[1]).toEqual({ role: 'tool', tool_call_id: callId, content: 'Error: boom' });
  });

  it('sends wav audio as input_audio and drops video with a WARN', () => {
    const { messages, warnings } = messagesOf([
      {
        kind: 'user',
        parts: [
          {
            type: 'media',
            modality: 'audio',
            mimeType: 'audio/wav',
            data: { type: 'base64', data: 'UklGRg==' },
          },
          {
            type: 'media',
            modality: 'video',
            mimeType: 'video/mp4',
            data: { type: 'uri', uri: 'https://x.test/v.mp4' },
          },
        ],
      },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] },
    ]);
    expect(warnings[0]?.fields).toMatchObject({ blockType: 'media', itemIndex: 0, partIndex: 1 });
  });

  it('drops reasoning from another provider with a structured WARN', () => {
    const { messages, warnings } = messagesOf([
      {
        kind: 'assistant',
        parts: [
          { type: 'reasoning', text: 'hmm', signature: 'sig', provider: 'anthropic' },
          { type: 'text', text: 'Hello' },
        ],
      },
    ]);
    expect(messages).toEqual([{ role: 'assistant', content: 'Hello' }]);
    expect(warnings).toEqual([
      {
        message: 'dropped a part the provider cannot take',
        fields: {
          messageId: null,
          itemIndex: 0,
          partIndex: 0,
          blockType: 'reasoning',
          reason: 'reasoning produced by anthropic cannot be verified by openai',
        },
      },
    ]);
  });

  it("joins an assistant item's text parts with nothing between (one continuous text)", () => {
    // A streamed Gemini reply kept one part per chunk; an Anthropic answer split into blocks around citations.
    const { messages } = messagesOf([
      {
        kind: 'assistant',
        parts: [
          { type: 'text', text: 'It is su' },
          { type: 'text', text: 'nny in P' },
          { type: 'text', text: 'aris.' },
        ],
      },
    ]);
    expect(messages).toEqual([{ role: 'assistant', content: 'It is sunny in Paris.' }]);
  });

  it('keeps texts another part stood between as two paragraphs, that part dropped or not', () => {
    const search = (kind: string) => ({
      type: 'custom' as const,
      provider: 'anthropic',
      kind,
      data: { type: kind },
    });
    const { messages } = messagesOf([
      {
        kind: 'assistant',
        parts: [
          { type: 'text', text: "I'll search for that." },
          search('server_tool_use'),
          search('web_search_tool_result'),
          { type: 'text', text: 'It is sunny' },
          { type: 'text', text: ' in Paris.' },
        ],
      },
    ]);
    expect(messages).toEqual([
      { role: 'assistant', content: "I'll search for that.\n\nIt is sunny in Paris." },
    ]);
  });

  it('drops its own reasoning silently where the host does not want it back', () => {
    const { messages, warnings } = messagesOf([
      {
        kind: 'assistant',
        parts: [
          { type: 'reasoning', text: 'hmm', provider: 'openai' },
          { type: 'text', text: 'Hi' },
        ],
      },
    ]);
    expect(messages).toEqual([{ role: 'assistant', content: 'Hi' }]);
    expect(warnings).toEqual([]);
  });

  it('replays DeepSeek reasoning_content on tool-call turns only', () => {
    const deepseek = mergeQuirks(defaultQuirks, presets.deepseek.quirks);
    const { messages } = messagesOf(
      [
        {
          kind: 'assistant',
          parts: [
            { type: 'reasoning', text: 'plan', provider: 'deepseek' },
            { type: 'text', text: 'A' },
          ],
        },
        {
          kind: 'assistant',
          parts: [
            { type: 'reasoning', text: 'call it', provider: 'deepseek' },
            { type: 'tool-call', id: callId, name: 'f', input: { x: 1 } },
          ],
        },
        {
          kind: 'tool',
          parts: [{ type: 'tool-result', callId, output: { type: 'text', text: 'ok' }, isError: false }],
        },
      ],
      deepseek,
      'deepseek',
    );
    expect(messages).toMatchInlineSnapshot(`
      [
        {
          "content": "A",
          "role": "assistant",
        },
        {
          "content": null,
          "reasoning_content": "call it",
          "role": "assistant",
          "tool_calls": [
            {
              "function": {
                "arguments": "{"x":1}",
                "name": "f",
              },
              "id": "tu_01JCALL00000000000000000AA",
              "type": "function",
            },
          ],
        },
        {
          "content": "ok",
          "role": "tool",
          "tool_call_id": "tu_01JCALL00000000000000000AA",
        },
      ]
    `);
  });

  it('replays OpenRouter reasoning as reasoning_details with signature and format', () => {
    const openrouter = mergeQuirks(defaultQuirks, presets.openrouter.quirks);
    const { messages } = messagesOf(
      [
        {
          kind: 'assistant',
          parts: [
            {
              type: 'reasoning',
              text: 'plan',
              signature: 'sig',
              provider: 'openrouter',
              metadata: { 'openrouter.reasoning_format': 'anthropic-claude-v1' },
            },
            { type: 'reasoning', text: '', data: 'enc==', provider: 'openrouter' },
            { type: 'text', text: 'A' },
          ],
        },
      ],
      openrouter,
      'openrouter',
    );
    expect(messages).toEqual([
      {
        role: 'assistant',
        content: 'A',
        reasoning_details: [
          { type: 'reasoning.text', text: 'plan', signature: 'sig', format: 'anthropic-claude-v1' },
          { type: 'reasoning.encrypted', data: 'enc==' },
        ],
      },
    ]);
  });

  it('puts its own custom parts back verbatim and drops foreign ones', () => {
    const { messages, warnings } = messagesOf(
      [
        {
          kind: 'assistant',
          parts: [
            { type: 'text', text: 'See' },
            {
              type: 'custom',
              provider: 'mistral',
              kind: 'reference',
              data: { type: 'reference', reference_ids: [1] },
            },
            { type: 'custom', provider: 'anthropic', kind: 'server_tool_use', data: { id: 'x' } },
          ],
        },
      ],
      mergeQuirks(defaultQuirks, presets.mistral.quirks),
      'mistral',
    );
    expect(messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'See' },
          { type: 'reference', reference_ids: [1] },
        ],
      },
    ]);
    expect(warnings).toHaveLength(1);
  });

  it('sends tool results filed under a user item as tool messages first', () => {
    const { messages } = messagesOf([
      { kind: 'assistant', parts: [{ type: 'tool-call', id: callId, name: 'f', input: {} }] },
      {
        kind: 'user',
        parts: [
          { type: 'tool-result', callId, output: { type: 'text', text: 'ok' }, isError: false },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
    expect(messages.slice(1)).toEqual([
      { role: 'tool', tool_call_id: callId, content: 'ok' },
      { role: 'user', content: 'Thanks' },
    ]);
  });
});

describe('buildRequest: host quirks', () => {
  const structured = { schema: { type: 'object' }, name: 'my schema!' };

  it('falls back to json_object with the schema in the instructions (DeepSeek)', () => {
    const deepseek = mergeQuirks(defaultQuirks, presets.deepseek.quirks);
    const body = buildRequest(
      { model: 'deepseek:deepseek-chat', transcript, maxOutputTokens: 5, outputSchema: structured },
      createTestContext({ provider: 'deepseek', model: 'deepseek-chat' }),
      { quirks: deepseek, strictTools: false },
    ).body;
    expect(body.response_format).toEqual({ type: 'json_object' });
    const [first] = body.messages as Array<{ content: string }>;
    expect(first?.content).toContain('conforms to this JSON Schema:\n{"type":"object"}');
  });

  it('sanitizes the json_schema name and omits strict where the host lacks it', () => {
    const body = buildRequest(
      { model: 'groq:m', transcript, maxOutputTokens: 5, outputSchema: structured },
      createTestContext({ provider: 'groq', model: 'm' }),
      { quirks: mergeQuirks(defaultQuirks, presets.groq.quirks), strictTools: false },
    ).body;
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'my_schema_', schema: { type: 'object' } },
    });
  });

  it('asks OpenRouter for reasoning with an object and Qwen with enable_thinking (streamed)', () => {
    const reasoning = { effort: 'high' as const, budgetTokens: 2000 };
    const openrouter = buildRequest(
      { model: 'openrouter:m', transcript, maxOutputTokens: 5, reasoning },
      createTestContext({ provider: 'openrouter', model: 'm' }),
      { quirks: mergeQuirks(defaultQuirks, presets.openrouter.quirks), strictTools: false },
    ).body;
    expect(openrouter.reasoning).toEqual({ effort: 'high' });
    const alibaba = buildRequest(
      { model: 'alibaba:qwen3-max', transcript, maxOutputTokens: 5, reasoning },
      createTestContext({ provider: 'alibaba', model: 'qwen3-max', stream: true }),
      { quirks: mergeQuirks(defaultQuirks, presets.alibaba.quirks), strictTools: false },
    ).body;
    expect(alibaba).toMatchObject({ enable_thinking: true, thinking_budget: 2000 });
  });

  it('turns a reasoning budget into the nearest effort level where the host takes only levels', () => {
    const effortOf = (budgetTokens: number) =>
      buildRequest(
        { ...request({ model: 'openai:gpt-5' }), reasoning: { budgetTokens } },
        createTestContext({ model: 'gpt-5' }),
        {
          quirks: openaiQuirks,
          strictTools: false,
        },
      ).body.reasoning_effort;
    expect([1024, 4096, 16_384].map(effortOf)).toEqual(['low', 'medium', 'high']);
  });

  it('drops top_k with a WARN where the host has none, and sends it where it does', () => {
    const context = createTestContext();
    const openai = buildRequest(request({ topK: 40 }), context, {
      quirks: openaiQuirks,
      strictTools: false,
    }).body;
    expect(openai).not.toHaveProperty('top_k');
    expect(context.warnings[0]?.fields).toEqual({ parameter: 'top_k' });
    const together = buildRequest(request({ topK: 40 }), createTestContext({ provider: 'together' }), {
      quirks: mergeQuirks(defaultQuirks, presets.together.quirks),
      strictTools: false,
    }).body;
    expect(together.top_k).toBe(40);
  });

  it('omits stream_options where the host rejects it (Mistral)', () => {
    const body = buildRequest(request(), createTestContext({ provider: 'mistral', stream: true }), {
      quirks: mergeQuirks(defaultQuirks, presets.mistral.quirks),
      strictTools: false,
    }).body;
    expect(body.stream).toBe(true);
    expect(body).not.toHaveProperty('stream_options');
  });
});
