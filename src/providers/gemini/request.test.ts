import { describe, expect, it } from 'vitest';
import { toolCallId } from '../../core/ids.ts';
import { type Item, systemText, userText } from '../../core/transcript.ts';
import { buildRequest, convertToolChoice } from './request.ts';
import { build, testContext, weatherTool } from './test-support.ts';

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
