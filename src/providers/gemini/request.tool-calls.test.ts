/** Gemini request bodies carrying tools: declarations, calls and their signatures, tool results. */
import { describe, expect, it } from 'vitest';
import { toolCallId } from '../../core/ids.ts';
import { type Item, type ToolResultPart, userText } from '../../core/transcript.ts';
import { geminiResponseObjectKey } from '../../core/metadata.ts';
import { build, testContext, weatherTool } from './test-support.ts';

describe('golden request bodies', () => {
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
