import { describe, expect, it } from 'vitest';
import { toolCallId } from '../../core/ids.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { type Item, systemText, type ToolResultPart, userText } from '../../core/transcript.ts';
import { geminiResponseObjectKey } from '../../core/metadata.ts';
import { buildRequest, convertReasoning, convertToolChoice } from './request.ts';
import { capabilitiesFor } from './capabilities.ts';
import { testContext } from './test-support.ts';

const settings = { useJsonSchema: false };

function build(request: Partial<CanonicalRequest>, context = testContext()) {
  const full: CanonicalRequest = {
    model: 'gemini:gemini-2.5-flash',
    transcript: [userText('Hello')],
    maxOutputTokens: 256,
    ...request,
  };
  return { wire: buildRequest(full, context, settings), context };
}

const weatherTool = {
  name: 'weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['city'],
    additionalProperties: false,
  },
};

it('sends at most 5 stop sequences (generationConfig takes up to 5); the rest are cut at here', () => {
  expect(build({ stopSequences: ['a', 'b', 'c', 'd', 'e'] }).wire.body).toMatchObject({
    generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e'] },
  });
  expect(build({ stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'] }).wire.body).toMatchObject({
    generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e'] },
  });
});

it('sends no empty stop sequence (it stops at nothing); a whitespace-only one goes as it is', () => {
  expect(build({ stopSequences: ['', '\n', 'END'] }).wire.body).toMatchObject({
    generationConfig: { stopSequences: ['\n', 'END'] },
  });
  const onlyEmpty = build({ stopSequences: [''] }).wire.body as { generationConfig: object };
  expect(onlyEmpty.generationConfig).not.toHaveProperty('stopSequences');
  // An empty one takes none of the five: six with one empty all go.
  expect(build({ stopSequences: ['a', '', 'b', 'c', 'd', 'e'] }).wire.body).toMatchObject({
    generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e'] },
  });
});

describe('golden request bodies', () => {
  it('text: system instruction hoisted, sampling knobs in generationConfig', () => {
    const { wire } = build({
      transcript: [
        systemText('Be brief.'),
        userText('Hello'),
        { kind: 'assistant', parts: [{ type: 'text', text: 'Hi!' }] },
        userText('Weather?'),
      ],
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
    });
    expect(wire.path).toBe('/models/gemini-2.5-flash:generateContent');
    expect(wire.body).toMatchInlineSnapshot(`
      {
        "contents": [
          {
            "parts": [
              {
                "text": "Hello",
              },
            ],
            "role": "user",
          },
          {
            "parts": [
              {
                "text": "Hi!",
              },
            ],
            "role": "model",
          },
          {
            "parts": [
              {
                "text": "Weather?",
              },
            ],
            "role": "user",
          },
        ],
        "generationConfig": {
          "maxOutputTokens": 256,
          "stopSequences": [
            "END",
          ],
          "temperature": 0.2,
          "topK": 40,
          "topP": 0.9,
        },
        "systemInstruction": {
          "parts": [
            {
              "text": "Be brief.",
            },
          ],
        },
      }
    `);
  });

  it('streaming uses streamGenerateContent with alt=sse', () => {
    const { wire } = build({}, testContext({ stream: true }));
    expect(wire.path).toBe('/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  it('tools: function declarations with the converted schema and a named tool choice', () => {
    const { wire } = build({
      tools: [
        weatherTool,
        { name: 'now', description: 'The time', inputSchema: { type: 'object', properties: {} } },
      ],
      toolChoice: { type: 'tool', name: 'weather' },
    });
    expect(wire.body).toMatchInlineSnapshot(`
      {
        "contents": [
          {
            "parts": [
              {
                "text": "Hello",
              },
            ],
            "role": "user",
          },
        ],
        "generationConfig": {
          "maxOutputTokens": 256,
        },
        "toolConfig": {
          "functionCallingConfig": {
            "allowedFunctionNames": [
              "weather",
            ],
            "mode": "ANY",
          },
        },
        "tools": [
          {
            "functionDeclarations": [
              {
                "description": "Current weather for a city",
                "name": "weather",
                "parameters": {
                  "properties": {
                    "city": {
                      "description": "City name",
                      "type": "STRING",
                    },
                    "unit": {
                      "enum": [
                        "celsius",
                        "fahrenheit",
                      ],
                      "type": "STRING",
                    },
                  },
                  "propertyOrdering": [
                    "city",
                    "unit",
                  ],
                  "required": [
                    "city",
                  ],
                  "type": "OBJECT",
                },
              },
              {
                "description": "The time",
                "name": "now",
              },
            ],
          },
        ],
      }
    `);
  });

  it('function-call round-trip: signatures verbatim on thought, call and text parts, results matched by name', () => {
    const callId = toolCallId('tu_call_1');
    const transcript: Item[] = [
      userText('Weather in Paris?'),
      {
        kind: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Need the tool.', signature: 'c2lnLXRob3VnaHQ=', provider: 'gemini' },
          {
            type: 'tool-call',
            id: callId,
            name: 'weather',
            input: { city: 'Paris' },
            signature: 'c2lnLWNhbGw=',
            provider: 'gemini',
          },
        ],
      },
      {
        kind: 'tool',
        parts: [{ type: 'tool-result', callId, output: { type: 'text', text: '18°C' }, isError: false }],
      },
      {
        kind: 'assistant',
        parts: [
          { type: 'text', text: 'It is 18°C.', metadata: { 'gemini.thoughtSignature': 'c2lnLXRleHQ=' } },
        ],
      },
      userText('Thanks'),
    ];
    const { wire } = build(
      { model: 'gemini:gemini-3-pro-preview', transcript },
      testContext({ model: 'gemini-3-pro-preview' }),
    );
    expect(wire.body.contents).toMatchInlineSnapshot(`
      [
        {
          "parts": [
            {
              "text": "Weather in Paris?",
            },
          ],
          "role": "user",
        },
        {
          "parts": [
            {
              "text": "Need the tool.",
              "thought": true,
              "thoughtSignature": "c2lnLXRob3VnaHQ=",
            },
            {
              "functionCall": {
                "args": {
                  "city": "Paris",
                },
                "id": "tu_call_1",
                "name": "weather",
              },
              "thoughtSignature": "c2lnLWNhbGw=",
            },
          ],
          "role": "model",
        },
        {
          "parts": [
            {
              "functionResponse": {
                "id": "tu_call_1",
                "name": "weather",
                "response": {
                  "output": "18°C",
                },
              },
            },
          ],
          "role": "user",
        },
        {
          "parts": [
            {
              "text": "It is 18°C.",
              "thoughtSignature": "c2lnLXRleHQ=",
            },
          ],
          "role": "model",
        },
        {
          "parts": [
            {
              "text": "Thanks",
            },
          ],
          "role": "user",
        },
      ]
    `);
  });

  it('unsigned calls from another provider get the documented sentinel on Gemini 3; their reasoning is dropped with a WARN', () => {
    const first = toolCallId('toolu_01A');
    const second = toolCallId('toolu_01B');
    const transcript: Item[] = [
      userText('Compare Paris and Rome'),
      {
        kind: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Two calls.', signature: 'anthropic-signature', provider: 'anthropic' },
          { type: 'tool-call', id: first, name: 'weather', input: { city: 'Paris' }, provider: 'anthropic' },
          { type: 'tool-call', id: second, name: 'weather', input: { city: 'Rome' }, provider: 'anthropic' },
        ],
      },
      {
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: first,
            name: 'weather',
            output: { type: 'json', value: { celsius: 18 } },
            isError: false,
          },
          {
            type: 'tool-result',
            callId: second,
            output: { type: 'text', text: 'station offline' },
            isError: true,
          },
        ],
      },
    ];
    const context = testContext({ model: 'gemini-3-flash-preview' });
    const { wire } = build({ model: 'gemini:gemini-3-flash-preview', transcript }, context);
    expect(wire.body.contents).toMatchInlineSnapshot(`
      [
        {
          "parts": [
            {
              "text": "Compare Paris and Rome",
            },
          ],
          "role": "user",
        },
        {
          "parts": [
            {
              "functionCall": {
                "args": {
                  "city": "Paris",
                },
                "id": "toolu_01A",
                "name": "weather",
              },
              "thoughtSignature": "skip_thought_signature_validator",
            },
            {
              "functionCall": {
                "args": {
                  "city": "Rome",
                },
                "id": "toolu_01B",
                "name": "weather",
              },
            },
          ],
          "role": "model",
        },
        {
          "parts": [
            {
              "functionResponse": {
                "id": "toolu_01A",
                "name": "weather",
                "response": {
                  "celsius": 18,
                },
              },
            },
            {
              "functionResponse": {
                "id": "toolu_01B",
                "name": "weather",
                "response": {
                  "error": "station offline",
                },
              },
            },
          ],
          "role": "user",
        },
      ]
    `);
    expect(context.logger.entries).toEqual([
      expect.objectContaining({
        message: 'dropped a part the provider cannot take',
        fields: expect.objectContaining({ blockType: 'reasoning', itemIndex: 1, partIndex: 0 }),
      }),
    ]);
  });

  it('unsigned calls on Gemini 2.5 are sent without any signature', () => {
    const id = toolCallId('call_abc');
    const transcript: Item[] = [
      userText('Paris?'),
      { kind: 'assistant', parts: [{ type: 'tool-call', id, name: 'weather', input: { city: 'Paris' } }] },
      {
        kind: 'tool',
        parts: [{ type: 'tool-result', callId: id, output: { type: 'text', text: 'sunny' }, isError: false }],
      },
    ];
    const { wire } = build({ transcript });
    const model = (wire.body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>)[1];
    expect(model?.parts[0]).toEqual({
      functionCall: { name: 'weather', args: { city: 'Paris' }, id: 'call_abc' },
    });
  });

  it('images and files: inline data, bytes as base64, URIs as fileData', () => {
    const { wire } = build({
      transcript: [
        {
          kind: 'user',
          parts: [
            { type: 'text', text: 'What is in these?' },
            {
              type: 'media',
              modality: 'image',
              mimeType: 'image/png',
              data: { type: 'base64', data: 'iVBORw0KGgo=' },
            },
            {
              type: 'media',
              modality: 'image',
              mimeType: 'image/jpeg',
              data: { type: 'bytes', bytes: new Uint8Array([255, 216, 255]) },
            },
            {
              type: 'file',
              mimeType: 'application/pdf',
              data: { type: 'uri', uri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' },
            },
            {
              type: 'media',
              modality: 'audio',
              mimeType: 'audio/wav',
              data: { type: 'uri', uri: 'gs://bucket/a.wav' },
            },
          ],
        },
      ],
    });
    expect(wire.body.contents).toMatchInlineSnapshot(`
      [
        {
          "parts": [
            {
              "text": "What is in these?",
            },
            {
              "inlineData": {
                "data": "iVBORw0KGgo=",
                "mimeType": "image/png",
              },
            },
            {
              "inlineData": {
                "data": "/9j/",
                "mimeType": "image/jpeg",
              },
            },
            {
              "fileData": {
                "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc",
                "mimeType": "application/pdf",
              },
            },
            {
              "fileData": {
                "fileUri": "gs://bucket/a.wav",
                "mimeType": "audio/wav",
              },
            },
          ],
          "role": "user",
        },
      ]
    `);
  });

  it("a tool result's image: inside the functionResponse on Gemini 3, a sibling part before (URIs stay siblings)", () => {
    const call = toolCallId('call_chart');
    const transcript: Item[] = [
      userText('Chart it'),
      { kind: 'assistant', parts: [{ type: 'tool-call', id: call, name: 'chart', input: {} }] },
      {
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: call,
            isError: false,
            output: {
              type: 'parts',
              parts: [
                { type: 'text', text: 'the chart' },
                {
                  type: 'media',
                  modality: 'image',
                  mimeType: 'image/png',
                  data: { type: 'base64', data: 'iVBORw0KGgo=' },
                },
                {
                  type: 'file',
                  mimeType: 'application/pdf',
                  data: { type: 'uri', uri: 'gs://bucket/a.pdf' },
                },
              ],
            },
          },
        ],
      },
    ];
    const resultParts = (model: string) => {
      const { wire } = build({ model, transcript }, testContext({ model }));
      return (wire.body.contents as Array<{ parts: unknown[] }>)[2]!.parts;
    };
    const image = { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } };
    const pdf = { fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/a.pdf' } };
    const response = { name: 'chart', response: { output: 'the chart' }, id: 'call_chart' };
    expect(resultParts('gemini-3-pro-preview')).toEqual([
      { functionResponse: { ...response, parts: [image] } },
      pdf,
    ]);
    expect(resultParts('gemini-2.5-flash')).toEqual([{ functionResponse: response }, image, pdf]);
    // A name that does not say its generation (an alias that may be a 2.5): siblings, which every model takes.
    expect(resultParts('gemini-flash-latest')).toEqual([{ functionResponse: response }, image, pdf]);
  });

  it('tool results go in the order of the calls they answer, not the order a client finished them in', () => {
    const [a, b, c] = ['call_a', 'call_b', 'call_c'].map((id) => toolCallId(id));
    const result = (callId: typeof a, text: string) => ({
      type: 'tool-result' as const,
      callId: callId!,
      isError: false,
      output: { type: 'text' as const, text },
    });
    const transcript: Item[] = [
      userText('Read both and list'),
      {
        kind: 'assistant',
        parts: [
          { type: 'tool-call', id: a!, name: 'Read', input: { path: 'a' } },
          { type: 'tool-call', id: b!, name: 'Bash', input: { cmd: 'ls' } },
          { type: 'tool-call', id: c!, name: 'Read', input: { path: 'c' } },
        ],
      },
      { kind: 'tool', parts: [result(c, 'C'), result(a, 'A'), result(b, 'B')] },
    ];
    const { wire } = build({ transcript }, testContext());
    const responses = (
      wire.body.contents as Array<{ parts: Array<{ functionResponse?: { id: string } }> }>
    )[2]!.parts;
    expect(responses.map((part) => part.functionResponse?.id)).toEqual(['call_a', 'call_b', 'call_c']);
  });

  it('structured output: responseMimeType and the converted responseSchema', () => {
    const { wire } = build({
      outputSchema: {
        schema: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            age: { type: ['integer', 'null'] },
            tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          },
          required: ['name'],
        },
      },
    });
    expect(wire.body.generationConfig).toMatchInlineSnapshot(`
      {
        "maxOutputTokens": 256,
        "responseMimeType": "application/json",
        "responseSchema": {
          "properties": {
            "age": {
              "nullable": true,
              "type": "INTEGER",
            },
            "name": {
              "type": "STRING",
            },
            "tags": {
              "items": {
                "type": "STRING",
              },
              "maxItems": 3,
              "type": "ARRAY",
            },
          },
          "propertyOrdering": [
            "name",
            "age",
            "tags",
          ],
          "required": [
            "name",
          ],
          "type": "OBJECT",
        },
      }
    `);
  });

  it('safety settings and generationConfig pass through from providerOptions.gemini', () => {
    const { wire } = build({
      providerOptions: {
        gemini: {
          safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
          generationConfig: { seed: 7 },
          tools: [{ googleSearch: {} }],
        },
      },
    });
    expect(wire.body).toMatchInlineSnapshot(`
      {
        "contents": [
          {
            "parts": [
              {
                "text": "Hello",
              },
            ],
            "role": "user",
          },
        ],
        "generationConfig": {
          "maxOutputTokens": 256,
          "seed": 7,
        },
        "safetySettings": [
          {
            "category": "HARM_CATEGORY_HARASSMENT",
            "threshold": "BLOCK_ONLY_HIGH",
          },
        ],
        "tools": [
          {
            "googleSearch": {},
          },
        ],
      }
    `);
  });

  it('thinking: an effort without thinking (an Anthropic client’s effort alone) is the level, thoughts not asked back', () => {
    expect(convertReasoning({ effort: 'low', thinking: false }, 'gemini-3-flash-preview')).toEqual({
      includeThoughts: false,
      thinkingLevel: 'low',
    });
  });

  it('thinking: a Gemini 3 effort becomes thinkingLevel, an older model a budget, never both', () => {
    expect(convertReasoning({ effort: 'medium' }, 'gemini-3-flash-preview')).toEqual({
      includeThoughts: true,
      thinkingLevel: 'medium',
    });
    expect(convertReasoning({ effort: 'medium' }, 'gemini-3-pro-preview')).toEqual({
      includeThoughts: true,
      thinkingLevel: 'high',
    });
    expect(convertReasoning({ effort: 'minimal' }, 'gemini-2.5-pro')).toEqual({
      includeThoughts: true,
      thinkingBudget: 128,
    });
    expect(convertReasoning({ effort: 'minimal' }, 'gemini-2.5-flash')).toEqual({
      includeThoughts: true,
      thinkingBudget: 0,
    });
    expect(
      convertReasoning(
        { budgetTokens: 2048, effort: 'high', includeThoughts: false },
        'gemini-3-pro-preview',
      ),
    ).toEqual({
      includeThoughts: false,
      thinkingBudget: 2048,
    });
  });

  it('thinking: an explicit budget over a 2.5 model’s largest is its largest, with a WARN (Gemini refuses one out of range)', () => {
    const warnings: Array<[string, Record<string, unknown>]> = [];
    const context = {
      warn: (message: string, fields: Record<string, unknown>) => void warnings.push([message, fields]),
    };
    expect(convertReasoning({ budgetTokens: 60_000 }, 'gemini-2.5-flash', context)).toEqual({
      includeThoughts: true,
      thinkingBudget: 24_576,
    });
    expect(convertReasoning({ budgetTokens: 4_294_967_297 }, 'gemini-2.5-pro', context)).toEqual({
      includeThoughts: true,
      thinkingBudget: 32_768,
    });
    expect(warnings.map(([message, fields]) => [message, fields.sent])).toEqual([
      ['lowered the thinking budget to the largest the model takes', 24_576],
      ['lowered the thinking budget to the largest the model takes', 32_768],
    ]);
    // Within range, and on Gemini 3 (its levels' range is not documented as a budget): as asked.
    expect(convertReasoning({ budgetTokens: 24_576 }, 'gemini-2.5-flash', context)).toMatchObject({
      thinkingBudget: 24_576,
    });
    expect(convertReasoning({ budgetTokens: 60_000 }, 'gemini-3-pro-preview', context)).toMatchObject({
      thinkingBudget: 60_000,
    });
    expect(warnings).toHaveLength(2);
  });

  it('thinking: xhigh and max are the most each model takes — level high, or high’s budget (the largest)', () => {
    for (const model of ['gemini-3-flash-preview', 'gemini-3-pro-preview'])
      for (const effort of ['xhigh', 'max'] as const)
        expect(convertReasoning({ effort }, model)).toEqual({
          includeThoughts: true,
          thinkingLevel: 'high',
        });
    for (const [model, budget] of [
      ['gemini-2.5-pro', 32_768],
      ['gemini-2.5-flash', 24_576],
    ] as const) {
      expect(convertReasoning({ effort: 'xhigh' }, model)).toEqual({
        includeThoughts: true,
        thinkingBudget: budget,
      });
      expect(convertReasoning({ effort: 'max' }, model)).toEqual({
        includeThoughts: true,
        thinkingBudget: budget,
      });
      expect(convertReasoning({ effort: 'high' }, model)).toEqual({
        includeThoughts: true,
        thinkingBudget: budget,
      });
    }
  });

  it('reasoning off: 2.5 Flash gets thinkingBudget 0; a model that cannot stop thinking its least, with a WARN', () => {
    const off = (model: string) => {
      const context = testContext({ model, capabilities: capabilitiesFor(model) });
      const { wire } = build({ model: `gemini:${model}`, reasoning: { effort: 'none' } }, context);
      const config = (wire.body as { generationConfig: Record<string, unknown> }).generationConfig;
      return { thinking: config.thinkingConfig, warnings: context.logger.entries };
    };
    for (const model of ['gemini-2.5-flash', 'gemini-2.5-flash-lite'])
      expect(off(model)).toEqual({ thinking: { thinkingBudget: 0 }, warnings: [] });
    for (const [model, least] of [
      ['gemini-2.5-pro', { thinkingBudget: 128 }],
      ['gemini-3-pro-preview', { thinkingLevel: 'low' }],
      ['gemini-3-flash-preview', { thinkingLevel: 'minimal' }],
    ] as const) {
      const { thinking, warnings } = off(model);
      expect(thinking).toEqual(least);
      expect(warnings).toEqual([
        expect.objectContaining({
          message: 'sent the least thinking the model takes: it cannot turn thinking off',
          fields: expect.objectContaining({ requested: 'none', sent: Object.values(least)[0] }),
        }),
      ]);
    }
    // A model that does not think: nothing to turn off.
    expect(off('gemini-2.0-flash')).toEqual({ thinking: undefined, warnings: [] });
  });

  it('tool choice: auto, none, required map to AUTO, NONE, ANY', () => {
    expect(convertToolChoice('auto')).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(convertToolChoice('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(convertToolChoice('required')).toEqual({ functionCallingConfig: { mode: 'ANY' } });
  });

  it('consecutive same-role turns are merged; tool results and the next user text share a user turn', () => {
    const id = toolCallId('call_1');
    const { wire } = build({
      transcript: [
        userText('one'),
        userText('two'),
        { kind: 'assistant', parts: [{ type: 'tool-call', id, name: 'weather', input: {} }] },
        {
          kind: 'tool',
          parts: [{ type: 'tool-result', callId: id, output: { type: 'text', text: 'ok' }, isError: false }],
        },
        userText('and now?'),
      ],
    });
    const contents = wire.body.contents as Array<{ role: string; parts: unknown[] }>;
    expect(contents.map((content) => [content.role, content.parts.length])).toEqual([
      ['user', 2],
      ['model', 1],
      ['user', 2],
    ]);
  });

  it('a tool result naming no tool and answering no known call fails with InvalidRequestError', () => {
    const orphan = toolCallId('tu_orphan');
    expect(() =>
      build({
        transcript: [
          userText('x'),
          {
            kind: 'tool',
            parts: [
              { type: 'tool-result', callId: orphan, output: { type: 'text', text: '?' }, isError: false },
            ],
          },
        ],
      }),
    ).toThrow(/tu_orphan names no tool/);
  });

  it('a handle data reference is dropped with a WARN, never half-sent', () => {
    const { wire, context } = build({
      transcript: [
        {
          kind: 'user',
          parts: [
            { type: 'text', text: 'see' },
            {
              type: 'media',
              modality: 'image',
              mimeType: 'image/png',
              data: { type: 'handle', handle: 'artifact-1' },
            },
          ],
        },
      ],
    });
    expect(wire.body.contents).toEqual([{ role: 'user', parts: [{ text: 'see' }] }]);
    expect(context.logger.entries[0]?.fields).toMatchObject({ blockType: 'media' });
  });

  it('tuned model names keep their collection in the path', () => {
    const { wire } = build(
      { model: 'gemini:tunedModels/my-model' },
      testContext({ model: 'tunedModels/my-model' }),
    );
    expect(wire.path).toBe('/tunedModels/my-model:generateContent');
  });

  it('an array without items or a nested object without properties fails in tool parameters and the output schema alike', () => {
    const schema = { type: 'object', properties: { meta: { type: 'object' }, tags: { type: 'array' } } };
    expect(() => build({ tools: [{ name: 't', inputSchema: schema }] })).toThrow(
      /tool t parameters: keyword `properties` at \$\.properties\.meta .*useJsonSchema: true/,
    );
    const arrays = { type: 'object', properties: { tags: { type: 'array' } } };
    expect(() => build({ outputSchema: { schema: arrays } })).toThrow(
      /output schema: keyword `items` at \$\.properties\.tags .*useJsonSchema: true/,
    );
    const verbatim = buildRequest(
      {
        model: 'gemini:gemini-2.5-flash',
        transcript: [userText('x')],
        maxOutputTokens: 10,
        outputSchema: { schema },
      },
      testContext(),
      { useJsonSchema: true },
    );
    expect((verbatim.body.generationConfig as Record<string, unknown>).responseJsonSchema).toEqual(schema);
  });

  it('useJsonSchema sends schemas verbatim as parametersJsonSchema and responseJsonSchema (Gemini 3: JSON mode with tools)', () => {
    const context = testContext({ model: 'gemini-3-pro-preview' });
    const wire = buildRequest(
      {
        model: 'gemini:gemini-3-pro-preview',
        transcript: [userText('x')],
        maxOutputTokens: 10,
        tools: [weatherTool],
        outputSchema: { schema: { type: 'object', additionalProperties: { type: 'number' } } },
      },
      context,
      { useJsonSchema: true },
    );
    const tools = wire.body.tools as Array<{ functionDeclarations: Array<Record<string, unknown>> }>;
    expect(tools[0]?.functionDeclarations[0]?.parametersJsonSchema).toEqual(weatherTool.inputSchema);
    expect((wire.body.generationConfig as Record<string, unknown>).responseJsonSchema).toEqual({
      type: 'object',
      additionalProperties: { type: 'number' },
    });
  });
});

it('an empty user turn is refused naming it (left out, the model message before it would be continued); empty text beside other content is left out', () => {
  const turns = (last: Item): Item[] => [
    userText('Tell me a joke'),
    { kind: 'assistant', parts: [{ type: 'text', text: 'Why?' }] },
    last,
  ];
  expect(() => build({ transcript: turns(userText('')) })).toThrow(
    /gemini: the user turn \(transcript\[2\]\.parts\[0\]\) is empty/,
  );
  const mixed = {
    kind: 'user',
    parts: [
      { type: 'text', text: '' },
      { type: 'text', text: 'Go on' },
    ],
  } as Item;
  const contents = build({ transcript: turns(mixed) }).wire.body.contents as Array<{ parts: unknown[] }>;
  expect(contents.at(-1)).toEqual({ role: 'user', parts: [{ text: 'Go on' }] });
});

it('an empty user turn after a function response is part of that user content, sent (it stands alone nowhere)', () => {
  const id = toolCallId('tu_01JCALL000000000000000000');
  const transcript: Item[] = [
    userText('weather?'),
    { kind: 'assistant', parts: [{ type: 'tool-call', id, name: 'get', input: {} }] },
    {
      kind: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: id,
          name: 'get',
          output: { type: 'text', text: 'sunny' },
          isError: false,
        },
      ],
    },
    systemText('Be brief.'),
    userText(''),
  ];
  const contents = build({ transcript }).wire.body.contents as Array<{ role: string; parts: object[] }>;
  expect(contents.at(-1)?.role).toBe('user');
  expect(contents.at(-1)?.parts.map((part) => Object.keys(part))).toEqual([['functionResponse']]);
});

it('a tool result of one structured object goes under output (an error key of its own is no failed call)', () => {
  const id = toolCallId('tu_01JCALL000000000000000000');
  const value = { error: 'none', rows: 3 };
  const result = (output: ToolResultPart['output']): Item[] => [
    userText('go'),
    { kind: 'assistant', parts: [{ type: 'tool-call', id, name: 'get', input: {} }] },
    { kind: 'tool', parts: [{ type: 'tool-result', callId: id, name: 'get', isError: false, output }] },
  ];
  const responseOf = (transcript: Item[]) => {
    const contents = build({ transcript }).wire.body.contents as Array<{
      parts: Array<{ functionResponse?: { response: unknown } }>;
    }>;
    return contents.at(-1)?.parts[0]?.functionResponse?.response;
  };
  expect(responseOf(result({ type: 'parts', parts: [{ type: 'structured', value }] }))).toEqual({
    output: value,
  });
  // Beside media too, unless it is a Gemini client's response object as written.
  const image = {
    type: 'media',
    modality: 'image',
    mimeType: 'image/png',
    data: { type: 'base64', data: 'AA==' },
  } as const;
  expect(responseOf(result({ type: 'parts', parts: [{ type: 'structured', value }, image] }))).toEqual({
    output: value,
  });
  const written = { type: 'structured', value, metadata: { [geminiResponseObjectKey]: true } } as const;
  expect(responseOf(result({ type: 'parts', parts: [written, image] }))).toEqual(value);
});
