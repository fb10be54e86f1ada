/**
 * A Gemini client's enum output (`responseMimeType: text/x.enum` with a STRING enum schema, Google's
 * classification idiom): the reply's text is the bare value (`Percussion`, not `"Percussion"`) from
 * every upstream — a Gemini upstream is sent `text/x.enum` itself, another the JSON string schema
 * (wrapped as `{ value }` for OpenAI) and its JSON answer unquoted — whole and streamed. A mime type
 * no upstream can be asked for is a 400 naming `generationConfig.responseMimeType`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const instruments = { type: 'STRING', enum: ['Percussion', 'String', 'Woodwind'] };
const contents = 'What type of instrument is a drum?';
const config = { responseMimeType: 'text/x.enum', responseSchema: instruments as never };
const sent = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;

/** What each upstream's model writes when asked as it is asked. */
const answers: Record<string, string> = {
  'up-gemini': 'Percussion',
  'up-anthropic': '{"value":"Percussion"}',
  'up-chat': '{"value": "Percussion"}',
  'up-responses': '{"value":"Percussion"}',
};

describe.each(Object.keys(answers).map((model) => [model]))('enum output via %s', (model) => {
  it('whole: the text is the bare value', async () => {
    harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: answers[model]! }] });
    const { google } = createClients(harness.server.url);
    const response = await google.models.generateContent({ model, contents, config });
    expect(response.text).toBe('Percussion');
  });

  it('streamed: the text is the bare value', async () => {
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: answers[model]! }],
      chunkSize: 3,
    });
    const { google } = createClients(harness.server.url);
    const stream = await google.models.generateContentStream({ model, contents, config });
    let text = '';
    for await (const chunk of stream) text += chunk.text ?? '';
    expect(text).toBe('Percussion');
  });
});

it('a Gemini upstream is sent text/x.enum with the STRING enum schema', async () => {
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Percussion' }] });
  const { google } = createClients(harness.server.url);
  await google.models.generateContent({ model: 'up-gemini', contents, config });
  expect(sent().generationConfig).toMatchObject({
    responseMimeType: 'text/x.enum',
    responseSchema: { type: 'STRING', enum: ['Percussion', 'String', 'Woodwind'] },
  });
});

it('an OpenAI upstream is sent the string enum wrapped as { value }, strict', async () => {
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: answers['up-chat']! }] });
  const { google } = createClients(harness.server.url);
  await google.models.generateContent({ model: 'up-chat', contents, config });
  expect(sent().response_format).toMatchObject({
    type: 'json_schema',
    json_schema: {
      strict: true,
      schema: { type: 'object', properties: { value: { type: 'string', enum: instruments.enum } } },
    },
  });
});

it('an escaped JSON string answer is unquoted exactly', async () => {
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: '{"value":"Rock \\"n\\" roll \\u00e9"}' }],
    chunkSize: 2,
  });
  const { google } = createClients(harness.server.url);
  const response = await google.models.generateContent({
    model: 'up-anthropic',
    contents,
    config: {
      responseMimeType: 'text/x.enum',
      responseSchema: { type: 'STRING', enum: ['Rock "n" roll é'] } as never,
    },
  });
  expect(response.text).toBe('Rock "n" roll é');
});

describe('refused', () => {
  async function refusal(generationConfig: Record<string, unknown>) {
    const before = harness.emulator.requests.length;
    const response = await harness.post('/v1beta/models/up-chat:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      generationConfig,
    });
    expect(harness.emulator.requests.length).toBe(before);
    return {
      status: response.status,
      message: ((await response.json()) as { error: { message: string } }).error.message,
    };
  }

  it('a mime type the gateway cannot honour: a 400 naming generationConfig.responseMimeType', async () => {
    const { status, message } = await refusal({ responseMimeType: 'application/xml' });
    expect(status).toBe(400);
    expect(message).toContain('generationConfig.responseMimeType');
  });

  it.each([
    ['no schema', { responseMimeType: 'text/x.enum' }, 'generationConfig.responseSchema'],
    [
      'an object schema',
      {
        responseMimeType: 'text/x.enum',
        responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } },
      },
      'generationConfig.responseSchema',
    ],
    [
      'a JSON Schema enum of numbers',
      { responseMimeType: 'text/x.enum', responseJsonSchema: { enum: [1, 2] } },
      'generationConfig.responseJsonSchema',
    ],
  ])('text/x.enum with %s: a 400 naming the schema', async (_case, generationConfig, field) => {
    const { status, message } = await refusal(generationConfig);
    expect(status).toBe(400);
    expect(message).toContain(field);
  });
});

describe('nullable: true at the root of the answer schema', () => {
  const nullableInstruments = { ...instruments, nullable: true };

  it('JSON output: the answer may be null, toward Gemini and OpenAI alike', async () => {
    const { google } = createClients(harness.server.url);
    const json = { responseMimeType: 'application/json', responseSchema: nullableInstruments as never };
    harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'null' }] });
    const response = await google.models.generateContent({ model: 'up-gemini', contents, config: json });
    expect(response.text).toBe('null');
    const toGemini = sent().generationConfig as Record<string, unknown>;
    expect(toGemini.responseJsonSchema ?? toGemini.responseSchema).toMatchObject({
      enum: [...instruments.enum, null],
    });
    harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: '{"value":null}' }] });
    const chat = await google.models.generateContent({ model: 'up-chat', contents, config: json });
    expect(chat.text).toBe('null');
    const value = (sent().response_format as { json_schema: { schema: { properties: { value: unknown } } } })
      .json_schema.schema.properties.value;
    expect(value).toMatchObject({ enum: [...instruments.enum, null] });
  });

  it('enum output (text/x.enum): the bare value cannot be null; nullable is left out with a WARN', async () => {
    const before = harness.logger.entries.length;
    harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Percussion' }] });
    const { google } = createClients(harness.server.url);
    const response = await google.models.generateContent({
      model: 'up-gemini',
      contents,
      config: { responseMimeType: 'text/x.enum', responseSchema: nullableInstruments as never },
    });
    expect(response.text).toBe('Percussion');
    expect(sent().generationConfig).toMatchObject({ responseMimeType: 'text/x.enum' });
    const warnings = harness.logger.entries
      .slice(before)
      .filter((entry) => entry.message === 'gateway: part of the request was left out');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.fields.details)).toContain('generationConfig.responseSchema.nullable');
  });

  it('JSON output with an object root: asked for as an object, never ["object", "null"]; nullable left out with a WARN', async () => {
    const before = harness.logger.entries.length;
    const answer = {
      type: 'OBJECT',
      nullable: true,
      properties: { name: { type: 'STRING' } },
      required: ['name'],
    };
    harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: '{"name":"oboe"}' }] });
    const { google } = createClients(harness.server.url);
    const response = await google.models.generateContent({
      model: 'up-chat',
      contents,
      config: { responseMimeType: 'application/json', responseSchema: answer as never },
    });
    expect(response.text).toBe('{"name":"oboe"}');
    const schema = (sent().response_format as { json_schema: { schema: Record<string, unknown> } })
      .json_schema.schema;
    expect(schema.type).toBe('object');
    expect(schema).not.toHaveProperty('properties.value');
    const warnings = harness.logger.entries
      .slice(before)
      .filter((entry) => entry.message === 'gateway: part of the request was left out');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.fields.details)).toContain('generationConfig.responseSchema.nullable');
  });
});
