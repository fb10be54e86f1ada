/**
 * Request fields the gateway carries to an upstream as far as it takes them: a Gemini client's
 * safetySettings and OpenAPI schemas, stop sequences over an upstream's count, an Anthropic
 * client's cache markers and their TTL.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmulatedGateway } from '../support/emulated.ts';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const hello = scriptedText;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  harness.post(path, body, headers);

describe('a Gemini client’s safetySettings', () => {
  const safety = [
    { category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' },
    { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', threshold: 'BLOCK_ONLY_HIGH', method: 'SEVERITY' },
  ];
  const generate = (model: string, extra: Record<string, unknown>) =>
    post(
      `/v1beta/models/${model}:generateContent`,
      JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], ...extra }),
    );

  it('reach a Gemini upstream as the client wrote them (they change what the model may answer)', async () => {
    harness.emulator.enqueue(hello());
    const response = await generate('up-gemini', { safetySettings: safety });
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as { safetySettings?: unknown };
    expect(sent.safetySettings).toEqual(safety);
  });

  it('are left out toward another provider, which has no such setting, and the call is answered', async () => {
    harness.emulator.enqueue(hello());
    const response = await generate('up-chat', { safetySettings: safety });
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent).not.toHaveProperty('safetySettings');
    expect(JSON.stringify(sent)).not.toContain('HARM_CATEGORY');
  });

  it.each([
    ['not an array', { safetySettings: { category: 'HARM_CATEGORY_HARASSMENT' } }, 'safetySettings'],
    [
      'an entry without a threshold',
      { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' }] },
      'safetySettings.0.threshold',
    ],
    [
      'a value that is no enum name',
      { safetySettings: [{ category: 'x/../y', threshold: 'BLOCK_NONE' }] },
      'safetySettings.0.category',
    ],
    ['an unknown field', { safetySettings: [{ ...safety[0], extra: 1 }] }, 'safetySettings.0.extra'],
  ])('%s is a 400 naming the field, and nothing reaches the upstream', async (_case, extra, field) => {
    const before = harness.emulator.requests.length;
    const response = await generate('up-gemini', extra);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(field);
    expect(harness.emulator.requests.length).toBe(before);
  });

  it('a client’s 200 KB key (a safetySettings field, a schema property name) is named cut to 200 characters, not echoed whole', async () => {
    const key = 'k'.repeat(200_000);
    const bad = [
      { safetySettings: [{ ...safety[0], [key]: 1 }] },
      {
        tools: [
          { functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: { [key]: 5 } } }] },
        ],
      },
    ];
    for (const extra of bad) {
      const response = await generate('up-gemini', extra);
      expect(response.status).toBe(400);
      const { message } = ((await response.json()) as { error: { message: string } }).error;
      expect(message).toContain(`${'k'.repeat(200)}…`);
      expect(message.length).toBeLessThan(400);
    }
  });
});

it('a 200 KB value the other codecs name in a refusal (a block type, a role) is cut to 200 characters too', async () => {
  const big = 't'.repeat(200_000);
  const refusals = [
    post(
      '/v1/messages',
      JSON.stringify({
        model: 'up-anthropic',
        max_tokens: 9,
        messages: [{ role: 'user', content: [{ type: big }] }],
      }),
      { 'anthropic-version': '2023-06-01' },
    ),
    post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'up-chat', messages: [{ role: big, content: 'Hi' }] }),
    ),
    post('/v1/responses', JSON.stringify({ model: 'up-responses', input: [{ type: big }] })),
  ];
  for (const response of await Promise.all(refusals)) {
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).toContain(`${'t'.repeat(200)}…`);
    expect(text.length).toBeLessThan(1000);
  }
});

describe('a Gemini client’s OpenAPI schemas (responseSchema, parameters)', () => {
  const openApi = {
    type: 'OBJECT',
    properties: {
      name: { type: 'STRING', example: 'Ada' },
      nickname: { type: 'STRING', nullable: true },
      mood: { type: 'STRING', format: 'enum', enum: ['calm', 'busy'], nullable: true },
    },
    required: ['name', 'nickname'],
    propertyOrdering: ['name', 'nickname', 'mood'],
  };
  const jsonSchema = {
    type: 'object',
    properties: {
      name: { type: 'string', examples: ['Ada'] },
      nickname: { type: ['string', 'null'] },
      mood: { type: ['string', 'null'], enum: ['calm', 'busy', null] },
    },
    required: ['name', 'nickname'],
  };
  const generate = (model: string, extra: Record<string, unknown>) =>
    post(
      `/v1beta/models/${model}:generateContent`,
      JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], ...extra }),
    );

  it('a responseSchema reaches another provider as JSON Schema: nullable as a null type, no OpenAPI-only keywords', async () => {
    harness.emulator.enqueue(hello('{"name":"Ada","nickname":null}'));
    const response = await generate('up-chat', {
      generationConfig: { responseMimeType: 'application/json', responseSchema: openApi },
    });
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as {
      response_format: { json_schema: { schema: Record<string, unknown> } };
    };
    const schema = JSON.stringify(sent.response_format.json_schema.schema);
    expect(schema).not.toMatch(/nullable|propertyOrdering|"enum"\s*,\s*"format"|"format":"enum"/);
    expect(sent.response_format.json_schema.schema).toMatchObject({
      properties: { nickname: { type: ['string', 'null'] }, mood: { enum: ['calm', 'busy', null] } },
    });
  });

  it('function parameters in OpenAPI form reach an Anthropic upstream as the same JSON Schema', async () => {
    harness.emulator.enqueue(hello());
    const response = await generate('up-anthropic', {
      tools: [{ functionDeclarations: [{ name: 'save_person', parameters: openApi }] }],
    });
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as { tools: Array<{ input_schema: unknown }> };
    expect(sent.tools[0]!.input_schema).toEqual(jsonSchema);
  });

  it('nullable on the root (the arguments object) is not made a null type: a tool’s root stays an object', async () => {
    harness.emulator.enqueue(hello());
    const response = await generate('up-anthropic', {
      tools: [
        {
          functionDeclarations: [
            {
              name: 'f',
              parameters: { type: 'OBJECT', nullable: true, properties: { a: { type: 'STRING' } } },
            },
          ],
        },
      ],
    });
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as {
      tools: Array<{ input_schema: { type: unknown } }>;
    };
    expect(sent.tools[0]!.input_schema.type).toBe('object');
  });

  it('propertyOrdering becomes the order of the properties, which a Gemini upstream gets back as its order', async () => {
    const ordered = {
      type: 'OBJECT',
      properties: { a: { type: 'STRING' }, b: { type: 'STRING' } },
      propertyOrdering: ['b', 'a'],
    };
    harness.emulator.enqueue(hello('{"b":"x","a":"y"}'));
    await generate('up-gemini', {
      generationConfig: { responseMimeType: 'application/json', responseSchema: ordered },
    });
    const config = (
      harness.emulator.requests.at(-1)!.body as { generationConfig: Record<string, { properties: object }> }
    ).generationConfig;
    const schema = config.responseJsonSchema ?? config.responseSchema!;
    expect(Object.keys(schema.properties)).toEqual(['b', 'a']);
    harness.emulator.enqueue(hello('{"b":"x","a":"y"}'));
    await generate('up-chat', {
      generationConfig: { responseMimeType: 'application/json', responseSchema: ordered },
    });
    const sent = harness.emulator.requests.at(-1)!.body as {
      response_format: { json_schema: { schema: { properties: object } } };
    };
    expect(Object.keys(sent.response_format.json_schema.schema.properties)).toEqual(['b', 'a']);
    expect(JSON.stringify(sent)).not.toContain('propertyOrdering');
  });

  it('int64 counts the @google/genai types write as strings (minItems: "1") reach an upstream as numbers; a non-numeric one is a 400 naming it', async () => {
    const counted = {
      type: 'OBJECT',
      properties: {
        tags: { type: 'ARRAY', items: { type: 'STRING', maxLength: '10' }, minItems: '1', maxItems: 3 },
        meta: { type: 'OBJECT', properties: { a: { type: 'STRING', minLength: '2' } }, minProperties: '1' },
      },
    };
    harness.emulator.enqueue(hello());
    const response = await generate('up-anthropic', {
      tools: [{ functionDeclarations: [{ name: 'tag', parameters: counted }] }],
    });
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as { tools: Array<{ input_schema: unknown }> };
    expect(sent.tools[0]!.input_schema).toMatchObject({
      properties: {
        tags: { items: { maxLength: 10 }, minItems: 1, maxItems: 3 },
        meta: { properties: { a: { minLength: 2 } }, minProperties: 1 },
      },
    });
    const before = harness.emulator.requests.length;
    const refused = await generate('up-anthropic', {
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: 'three' },
      },
    });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { message: string } };
    expect(body.error.message).toContain('generationConfig.responseSchema.maxItems');
    expect(harness.emulator.requests.length).toBe(before);
  });

  it('a schema already in JSON Schema (responseJsonSchema, parametersJsonSchema) passes as written', async () => {
    // A default whose own `type` field is upper case: data, never a schema keyword to rewrite.
    const written = {
      type: 'object',
      properties: { shape: { type: 'object', default: { type: 'CIRCLE' } } },
      additionalProperties: false,
    };
    harness.emulator.enqueue(hello());
    const response = await generate('up-anthropic', {
      tools: [{ functionDeclarations: [{ name: 'tag', parametersJsonSchema: written }] }],
    });
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as { tools: Array<{ input_schema: unknown }> };
    expect(sent.tools[0]!.input_schema).toEqual(written);
  });
});

describe('stop sequences an upstream cannot take', () => {
  const anthropicBody = (model: string, stops: string[]) =>
    JSON.stringify({
      model,
      max_tokens: 50,
      stop_sequences: stops,
      messages: [{ role: 'user', content: 'Hi' }],
    });

  it('more than OpenAI’s 4 from an Anthropic client: the first 4 go upstream, the rest are cut at by the gateway', async () => {
    const gateway = createEmulatedGateway(harness.emulator.url, {
      logger: { warn: () => {} },
      adapters: { openai: 'openai' },
      apiKey: 'upstream-key',
      config: {
        models: { 'openai:gpt-4.1-mini': { aliases: ['older-chat'] } },
      },
    });
    harness.emulator.enqueue(hello());
    const response = await gateway.app.request('/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: anthropicBody('older-chat', ['a', 'b', 'c', 'd', 'e', 'f']),
    });
    expect(response.status).toBe(200);
    expect(harness.emulator.requests.at(-1)!.body).toMatchObject({ stop: ['a', 'b', 'c', 'd'] });
    await gateway.switchyard.close();
  });

  it('to a gpt-5 model, which refuses stop, none is sent and the call is answered (cut here: stop-sequences.test.ts)', async () => {
    harness.emulator.enqueue(hello());
    const response = await post('/v1/messages', anthropicBody('up-chat', ['a', 'b', 'c', 'd', 'e', 'f']), {
      'anthropic-version': '2023-06-01',
    });
    expect(response.status).toBe(200);
    expect(harness.emulator.requests.at(-1)!.body).not.toHaveProperty('stop');
  });
});

describe('an Anthropic client’s cache markers', () => {
  const markersOf = (body: unknown) =>
    [...JSON.stringify(body).matchAll(/"cache_control":(\{[^}]*\})/g)].map((match) => JSON.parse(match[1]!));

  it('ttl: "1h" on any marker reaches an Anthropic upstream as the one-hour cache, not the five-minute one', async () => {
    harness.emulator.enqueue(hello());
    const response = await post(
      '/v1/messages',
      JSON.stringify({
        model: 'up-anthropic',
        max_tokens: 50,
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        messages: [{ role: 'user', content: 'Hi' }],
      }),
      { 'anthropic-version': '2023-06-01' },
    );
    expect(response.status).toBe(200);
    const markers = markersOf(harness.emulator.requests.at(-1)!.body);
    expect(markers.length).toBeGreaterThan(0);
    expect(markers).toContainEqual({ type: 'ephemeral', ttl: '1h' });
  });

  it('a marker on a tool alone turns the cache on', async () => {
    harness.emulator.enqueue(hello());
    const response = await post(
      '/v1/messages',
      JSON.stringify({
        model: 'up-anthropic',
        max_tokens: 50,
        tools: [{ name: 'look', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Hi' }],
      }),
      { 'anthropic-version': '2023-06-01' },
    );
    expect(response.status).toBe(200);
    expect(markersOf(harness.emulator.requests.at(-1)!.body)).toContainEqual({ type: 'ephemeral' });
  });

  // Claude Code-like: a static prefix marked, then a block that changes per request. Joined into one
  // block with the marker at its end, the cached prefix changed every request (never a hit, a
  // cache write paid each time).
  const staticThenDynamic = (model: string, dynamic: string) =>
    post(
      '/v1/messages',
      JSON.stringify({
        model,
        max_tokens: 50,
        system: [
          { type: 'text', text: 'Static instructions.', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: 'More static.' },
          { type: 'text', text: 'Static end.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: dynamic },
        ],
        messages: [{ role: 'user', content: 'Hi' }],
      }),
      { 'anthropic-version': '2023-06-01' },
    );

  it('a marker before the last system block stays where the client put it, the changing block after it', async () => {
    harness.emulator.enqueue(hello());
    expect((await staticThenDynamic('up-anthropic', 'now=1')).status).toBe(200);
    expect((harness.emulator.requests.at(-1)!.body as { system: unknown }).system).toEqual([
      { type: 'text', text: 'Static instructions.', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'More static.\n\nStatic end.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'now=1' },
    ]);
  });

  it('more than 4 system markers: the latest 4 go; a 1-hour marker after a 5-minute one goes as 5 minutes (the API refuses both)', async () => {
    harness.emulator.enqueue(hello());
    const hour = { type: 'ephemeral', ttl: '1h' };
    const marked = (text: string, cache_control: object = { type: 'ephemeral' }) => ({
      type: 'text',
      text,
      cache_control,
    });
    const response = await post(
      '/v1/messages',
      JSON.stringify({
        model: 'up-anthropic',
        max_tokens: 50,
        system: [
          marked('a'),
          marked('b'),
          marked('c'),
          marked('d', hour),
          marked('e'),
          marked('f', hour),
          { type: 'text', text: 'now' },
        ],
        messages: [{ role: 'user', content: 'Hi' }],
      }),
      { 'anthropic-version': '2023-06-01' },
    );
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as {
      system: Array<{ text: string; cache_control?: unknown }>;
    };
    expect(sent.system.map((block) => [block.text, block.cache_control ?? null])).toEqual([
      ['a', null],
      ['b', null],
      ['c', { type: 'ephemeral' }],
      ['d', { type: 'ephemeral' }],
      ['e', { type: 'ephemeral' }],
      ['f', { type: 'ephemeral' }],
      ['now', null],
    ]);
    expect(markersOf(sent)).toHaveLength(4);
  });

  it('cache_control that is not an object (false, 0) is no marker: no cache asked, none sent', async () => {
    harness.emulator.enqueue(hello());
    const response = await post(
      '/v1/messages',
      JSON.stringify({
        model: 'up-anthropic',
        max_tokens: 50,
        system: [
          { type: 'text', text: 'a', cache_control: false },
          { type: 'text', text: 'b', cache_control: 0 },
        ],
        messages: [{ role: 'user', content: 'Hi' }],
      }),
      { 'anthropic-version': '2023-06-01' },
    );
    expect(response.status).toBe(200);
    expect(markersOf(harness.emulator.requests.at(-1)!.body)).toEqual([]);
  });

  it('to an OpenAI upstream the same system prompt is the blocks joined, as before', async () => {
    harness.emulator.enqueue(hello());
    expect((await staticThenDynamic('up-chat', 'now=2')).status).toBe(200);
    const { messages } = harness.emulator.requests.at(-1)!.body as { messages: Array<{ content: unknown }> };
    expect(messages[0]!.content).toBe('Static instructions.\n\nMore static.\n\nStatic end.\n\nnow=2');
  });
});

describe('an upstream rule about one setting names the client’s field', () => {
  const chat = (extra: Record<string, unknown>) =>
    post(
      '/v1/chat/completions',
      JSON.stringify({
        model: 'up-anthropic',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
        ...extra,
      }),
    );
  const paramOf = async (response: Response) =>
    ((await response.json()) as { error: { param: string | null } }).error.param;

  // The Agents SDK's toolChoice 'required', LangChain's withStructuredOutput: valid toward OpenAI.
  it('a reasoning effort with a forced tool choice, sent to Claude: served without thinking, the tool forced', async () => {
    harness.emulator.enqueue(hello());
    const response = await chat({
      reasoning_effort: 'medium',
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent.thinking).toBeUndefined();
    expect(sent.tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
  });

  it('an explicit thinking budget with a forced tool choice, sent to Claude: a 400 naming the client’s field', async () => {
    const response = await post(
      '/v1beta/models/up-anthropic:generateContent',
      JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'Weather?' }] }],
        tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object' } }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY' } },
        generationConfig: { thinkingConfig: { thinkingBudget: 2048 }, maxOutputTokens: 8000 },
      }),
    );
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('forced tool choice');
  });

  // A cap above the limit of the model the client named (gpt-4o: 16,384); routed through an alias
  // it would be lowered instead (output-limits.test.ts). Thinking without room for its budget is
  // the other such rule (thinking-room.test.ts: an effort goes without thinking, a budget is refused).
  it('a cap above the named model’s output limit: a 400 with param max_completion_tokens', async () => {
    const response = await chat({ model: 'openai:gpt-4o', max_completion_tokens: 64_000 });
    expect(response.status).toBe(400);
    expect(await paramOf(response)).toBe('max_completion_tokens');
  });

  // OpenAI's two protocols: a Chat client naming an OpenAI Responses model sized its cap for it.
  it('a Chat client naming an OpenAI Responses model with a cap above its limit: the 400, not lowered', async () => {
    const response = await chat({ model: 'responses:gpt-5-mini', max_completion_tokens: 500_000 });
    expect(response.status).toBe(400);
    expect(await paramOf(response)).toBe('max_completion_tokens');
  });

  it('the field the client sent is the one named, in param and message: max_tokens, not max_completion_tokens nor maxOutputTokens', async () => {
    const response = await chat({ model: 'openai:gpt-4o', max_tokens: 64_000 });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { param: string | null; message: string } };
    expect(error.param).toBe('max_tokens');
    expect(error.message).toContain('takes at most 16384 output tokens, got max_tokens 64000');
    expect(error.message).not.toMatch(/maxOutputTokens|max_completion_tokens/);
    const responses = await post(
      '/v1/responses',
      JSON.stringify({ model: 'openai:gpt-4o', input: 'Hi', max_output_tokens: 64_000 }),
    );
    const body = (await responses.json()) as { error: { param: string | null; message: string } };
    expect(body.error).toMatchObject({ param: 'max_output_tokens' });
    expect(body.error.message).toContain('got max_output_tokens 64000');
  });
});

describe('a Chat client’s response_format to a Claude upstream', () => {
  const ask = (response_format: unknown) =>
    post(
      '/v1/chat/completions',
      JSON.stringify({
        model: 'up-anthropic',
        messages: [{ role: 'user', content: 'JSON please' }],
        response_format,
      }),
    );

  it('json_object (JSON of any shape, which Claude’s JSON outputs cannot express) is sent without a format, as an instruction (json-mode-claude.test.ts)', async () => {
    harness.emulator.enqueue(hello('{"a":1}'));
    const response = await ask({ type: 'json_object' });
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as {
      output_config?: { format?: unknown };
      system?: string;
    };
    expect(sent.output_config?.format).toBeUndefined();
    expect(sent.system).toContain('single JSON object only');
  });

  it('a json_schema reaches Claude with every object closed', async () => {
    harness.emulator.enqueue(hello('{"a":"x"}'));
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const response = await ask({ type: 'json_schema', json_schema: { name: 'x', schema, strict: false } });
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as { output_config: { format: { schema: unknown } } };
    expect(sent.output_config.format.schema).toEqual({ ...schema, additionalProperties: false });
  });
});
