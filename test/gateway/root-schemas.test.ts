/**
 * Output schemas whose root is not an object — a root array, as in Gemini's own "list of recipes"
 * example — routed to an OpenAI upstream (Chat, Responses), which refuses any root but `type:
 * "object"` (the emulator too), or to Claude (`output_config.format`, whose root Anthropic's own SDK
 * refuses unless an object; the emulator too): the upstream is sent the schema wrapped as
 * `{ value }`, strict toward OpenAI, and the client gets the value's own JSON, whole and streamed.
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

const recipes = {
  type: 'ARRAY',
  items: {
    type: 'OBJECT',
    properties: { recipeName: { type: 'STRING' }, ingredients: { type: 'ARRAY', items: { type: 'STRING' } } },
    propertyOrdering: ['recipeName', 'ingredients'],
    required: ['recipeName', 'ingredients'],
  },
};
const list = '[{"recipeName":"Cookies","ingredients":["flour","sugar"]}]';
/** What the upstream's model writes for the wrapped schema: the list as `value`, spaced as a model may. */
const wrappedAnswer = (chunkSize?: number) => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text: `{ "value" : ${list} \n}` }],
  ...(chunkSize === undefined ? {} : { chunkSize }),
});
const config = { responseMimeType: 'application/json', responseSchema: recipes as never };
const contents = 'List a few popular cookie recipes.';

/**
 * The schema the upstream was sent: Chat's `response_format`, Responses' `text.format`, Claude's
 * `output_config.format`.
 */
function sentFormat(): { schema: Record<string, unknown>; strict?: boolean } {
  const body = harness.emulator.requests.at(-1)!.body as {
    response_format?: { json_schema: { schema: Record<string, unknown>; strict?: boolean } };
    text?: { format: { schema: Record<string, unknown>; strict?: boolean } };
    output_config?: { format: { schema: Record<string, unknown> } };
  };
  return body.response_format?.json_schema ?? body.text?.format ?? body.output_config!.format;
}

describe.each([['up-chat'], ['up-responses']])('a Gemini client’s root array toward %s', (model) => {
  it('is sent wrapped as { value }, strict, and the client gets the list', async () => {
    harness.emulator.enqueue(wrappedAnswer());
    const { google } = createClients(harness.server.url);
    const response = await google.models.generateContent({ model, contents, config });
    const format = sentFormat();
    expect(format.strict).toBe(true);
    expect(format.schema).toMatchObject({
      type: 'object',
      properties: { value: { type: 'array' } },
      required: ['value'],
      additionalProperties: false,
    });
    expect(response.text).toBe(list);
  });

  it('streamed: the list arrives as it comes, without the wrapper', async () => {
    harness.emulator.enqueue(wrappedAnswer(5));
    const { google } = createClients(harness.server.url);
    const stream = await google.models.generateContentStream({ model, contents, config });
    const pieces: string[] = [];
    for await (const chunk of stream)
      if (chunk.text !== undefined && chunk.text !== '') pieces.push(chunk.text);
    expect(pieces.join('')).toBe(list);
    // Not held to the end (no property became nullable, so nothing is rewritten whole): the list
    // comes in several pieces.
    expect(pieces.length).toBeGreaterThan(3);
  });
});

describe('a Gemini client’s root array toward Claude (up-anthropic)', () => {
  it('is sent wrapped as { value }, every object closed, and the client gets the list', async () => {
    harness.emulator.enqueue(wrappedAnswer());
    const { google } = createClients(harness.server.url);
    const response = await google.models.generateContent({ model: 'up-anthropic', contents, config });
    expect(sentFormat().schema).toMatchObject({
      type: 'object',
      properties: { value: { type: 'array', items: { type: 'object', additionalProperties: false } } },
      required: ['value'],
      additionalProperties: false,
    });
    expect(response.text).toBe(list);
  });

  it('streamed: the list arrives as it comes, without the wrapper', async () => {
    harness.emulator.enqueue(wrappedAnswer(5));
    const { google } = createClients(harness.server.url);
    const stream = await google.models.generateContentStream({ model: 'up-anthropic', contents, config });
    const pieces: string[] = [];
    for await (const chunk of stream)
      if (chunk.text !== undefined && chunk.text !== '') pieces.push(chunk.text);
    expect(pieces.join('')).toBe(list);
    expect(pieces.length).toBeGreaterThan(3);
  });

  it('a root enum answer (a Chat client’s string enum) is wrapped too, and the reply is the JSON string', async () => {
    harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: '{"value":"red"}' }] });
    const { openai } = createClients(harness.server.url);
    const completion = await openai.chat.completions.create({
      model: 'up-anthropic',
      messages: [{ role: 'user', content: 'A colour.' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'colour', schema: { type: 'string', enum: ['red', 'blue'] } },
      },
    });
    expect(sentFormat().schema).toMatchObject({ properties: { value: { enum: ['red', 'blue'] } } });
    expect(completion.choices[0]!.message.content).toBe('"red"');
  });

  it('a root array of free-form objects, asked for by instruction: the wrapper is described, the reply unwrapped', async () => {
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Here it is:\n```json\n{"value": [{"a": 1}]}\n```' }],
    });
    const { openai } = createClients(harness.server.url);
    const completion = await openai.chat.completions.create({
      model: 'up-anthropic',
      messages: [{ role: 'user', content: 'Some objects.' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'objects', schema: { type: 'array', items: { type: 'object' } } },
      },
    });
    const body = harness.emulator.requests.at(-1)!.body as { system?: string; output_config?: unknown };
    expect(body.output_config).toBeUndefined();
    expect(body.system).toContain('"properties":{"value":{"type":"array"');
    expect(completion.choices[0]!.message.content).toBe('[{"a": 1}]');
  });
});

it('an OpenAI client’s root array schema toward a Chat upstream: wrapped, and the reply is the array', async () => {
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: '{"value":["a","b"]}' }] });
  const { openai } = createClients(harness.server.url);
  const completion = await openai.chat.completions.create({
    model: 'up-chat',
    messages: [{ role: 'user', content: 'Two letters.' }],
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'letters', schema: { type: 'array', items: { type: 'string' } }, strict: true },
    },
  });
  expect(sentFormat().schema).toMatchObject({ properties: { value: { type: 'array' } } });
  expect(completion.choices[0]!.message.content).toBe('["a","b"]');
});

it('an object root goes as it is, and its reply is not rewritten', async () => {
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: '{"value":1}' }] });
  const { google } = createClients(harness.server.url);
  const response = await google.models.generateContent({
    model: 'up-chat',
    contents,
    config: {
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { value: { type: 'INTEGER' } } } as never,
    },
  });
  expect(sentFormat().schema).toMatchObject({ type: 'object', properties: { value: {} } });
  expect(sentFormat().schema.properties).not.toHaveProperty('value.properties');
  expect(response.text).toBe('{"value":1}');
});

it('strict nulls inside a wrapped root are left out again, as for an object root', async () => {
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: '{"value":[{"name":"Ada","nickname":null}]}' }],
  });
  const { openai } = createClients(harness.server.url);
  const completion = await openai.chat.completions.create({
    model: 'up-responses',
    messages: [{ role: 'user', content: 'Who?' }],
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'people',
        schema: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, nickname: { type: 'string' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
        strict: true,
      },
    },
  });
  expect(sentFormat()).toMatchObject({
    strict: true,
    schema: { properties: { value: { items: { required: ['name', 'nickname'] } } } },
  });
  expect(completion.choices[0]!.message.content).toBe('[{"name":"Ada"}]');
});

describe.each([
  ['whole', undefined],
  ['streamed', 4],
])('members beside the wrapped value (%s)', (_mode, chunkSize) => {
  it('are dropped with one WARN showing what was dropped, and the client gets the list', async () => {
    const before = harness.logger.entries.length;
    harness.emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'text', text: `{"value": ${list}, "note": "from memory", "source": null}\n{"again": 1}` },
      ],
      ...(chunkSize === undefined ? {} : { chunkSize }),
    });
    const { google } = createClients(harness.server.url);
    let text = '';
    if (chunkSize === undefined)
      text = (await google.models.generateContent({ model: 'up-chat', contents, config })).text ?? '';
    else
      for await (const chunk of await google.models.generateContentStream({
        model: 'up-chat',
        contents,
        config,
      }))
        text += chunk.text ?? '';
    expect(text).toBe(list);
    const warnings = harness.logger.entries
      .slice(before)
      .filter((entry) => entry.message.includes('beside its value'));
    expect(warnings).toHaveLength(1);
    // The model's text stays out of the log.
    expect(JSON.stringify(warnings[0]!.fields)).not.toContain('from memory');
  });
});

it('a wrapped answer with nothing beside its value gives no WARN', async () => {
  const before = harness.logger.entries.length;
  harness.emulator.enqueue(wrappedAnswer(3));
  const { google } = createClients(harness.server.url);
  await google.models.generateContent({ model: 'up-chat', contents, config });
  expect(
    harness.logger.entries.slice(before).filter((entry) => entry.message.includes('beside its value')),
  ).toEqual([]);
});
