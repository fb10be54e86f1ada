/**
 * Request bodies and stored state a client or another writer controls: media the upstream does not
 * take (named by the client's field), absurd nesting, `__proto__` keys and built-in property names,
 * compressed bodies, stored conversations that would grow past the body limit, a store that fails
 * or holds values of another shape, and the log lines a body can cause.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmulatedGateway } from '../support/emulated.ts';
import { type GatewayHarness, gatewayWithStore, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const hello = scriptedText;

beforeAll(async () => {
  harness = await startGatewayHarness({ body_limit_bytes: 4096 });
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  harness.post(path, body, headers);

const chatBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }], ...extra });

/**
 * A Chat client's turn replaying one call to `name` with `text` as its arguments, answered by the
 * Chat upstream: the arguments text the upstream got for that call.
 */
async function replayedArguments(name: string, text: string): Promise<string> {
  harness.emulator.enqueue(hello());
  const response = await post(
    '/v1/chat/completions',
    JSON.stringify({
      model: 'up-chat',
      messages: [
        { role: 'user', content: 'Go.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: text } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name, parameters: { type: 'object' } } }],
    }),
  );
  expect(response.status).toBe(200);
  const sent = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ tool_calls?: Array<{ function: { arguments: string } }> }>;
  };
  return sent.messages[1]!.tool_calls![0]!.function.arguments;
}

describe('a media type the upstream does not take', () => {
  const text = Buffer.from('plain words').toString('base64');
  it.each([
    [
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 64,
        messages: [
          { role: 'user', content: 'Read it' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'fetch', input: {} }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [
                  { type: 'text', text: 'here' },
                  { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
                ],
              },
            ],
          },
        ],
      },
      'messages.2.content.0.content.1',
    ],
    [
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'read' },
              // Text documents reach OpenAI (as text to Chat, as a file to Responses); a zip does not.
              { type: 'document', source: { type: 'base64', media_type: 'application/zip', data: text } },
            ],
          },
        ],
      },
      'messages.0.content.1',
    ],
    [
      '/v1/chat/completions',
      {
        model: 'up-responses',
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'ok' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'read' },
              { type: 'file', file: { filename: 'a.zip', file_data: `data:application/zip;base64,${text}` } },
            ],
          },
        ],
      },
      'messages.2.content.1',
    ],
    [
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'read' },
              { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
            ],
          },
        ],
      },
      'messages.0.content.1',
    ],
    [
      '/v1beta/models/up-chat:generateContent',
      {
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'read' },
              { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/a.pdf' } },
            ],
          },
        ],
      },
      'contents.0.parts.1',
    ],
    [
      '/v1beta/models/up-chat:generateContent',
      {
        contents: [
          {
            role: 'user',
            parts: [{ text: 'read' }, { inlineData: { mimeType: 'application/zip', data: text } }],
          },
        ],
      },
      'contents.0.parts.1',
    ],
    [
      '/v1/chat/completions',
      {
        model: 'up-anthropic',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'listen' },
              { type: 'input_audio', input_audio: { data: text, format: 'wav' } },
            ],
          },
        ],
      },
      'messages.0.content.1',
    ],
    [
      '/v1beta/models/up-responses:generateContent',
      {
        contents: [
          { role: 'user', parts: [{ text: 'hi' }] },
          { role: 'model', parts: [{ text: 'yes' }] },
          {
            role: 'user',
            parts: [{ text: 'listen' }, { inlineData: { mimeType: 'audio/wav', data: text } }],
          },
        ],
      },
      'contents.2.parts.1',
    ],
  ])("%s (row %#): the 400 names the client's own field, not a canonical path", async (path, body, field) => {
    const before = harness.emulator.requests.length;
    const response = await post(path, JSON.stringify(body));
    expect(response.status).toBe(400);
    const answer = JSON.stringify(await response.json());
    expect(answer).toContain(field);
    // The OpenAI protocols' error bodies have a field for it (Anthropic's and Gemini's do not).
    if (path.startsWith('/v1/chat') || path.startsWith('/v1/responses'))
      expect(answer).toContain(`"param":"${field}"`);
    expect(answer).not.toContain('transcript[');
    expect(harness.emulator.requests.length).toBe(before);
  });
});

describe('where a client’s media may point', () => {
  const media = (data: Record<string, unknown>) => ({
    model: 'up-chat',
    transcript: [
      {
        kind: 'user',
        parts: [
          { type: 'text', text: 'look' },
          { type: 'media', modality: 'image', mimeType: 'image/png', data },
        ],
      },
    ],
  });
  /** A native request for the Gemini upstream with one Gemini part given as it is (`custom`). */
  const geminiPart = (data: Record<string, unknown>) => ({
    model: 'up-gemini',
    transcript: [
      {
        kind: 'user',
        parts: [
          { type: 'text', text: 'look' },
          { type: 'custom', provider: 'gemini', kind: 'part', data },
        ],
      },
    ],
  });
  const rows: Array<[string, string, Record<string, unknown>]> = [
    [
      'an Anthropic image by an s3:// URL',
      '/v1/messages',
      {
        model: 'up-anthropic',
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'url', url: 's3://operator-bucket/a.png' } }],
          },
        ],
      },
    ],
    [
      'an Anthropic document in a tool result by a file: URL',
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'read it' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'fetch', input: {} }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [{ type: 'document', source: { type: 'url', url: 'file:///etc/passwd' } }],
              },
            ],
          },
        ],
        tools: [{ name: 'fetch', input_schema: { type: 'object' } }],
      },
    ],
    [
      'a Gemini fileData by a gs:// URI',
      '/v1beta/models/up-chat:generateContent',
      {
        contents: [
          { role: 'user', parts: [{ fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/x.pdf' } }] },
        ],
      },
    ],
    [
      'a native media URI with gopher:',
      '/switchyard/v1/stream',
      media({ type: 'uri', uri: 'gopher://127.0.0.1:6379/_x' }),
    ],
    [
      'a native media URI without a scheme',
      '/switchyard/v1/stream',
      media({ type: 'uri', uri: '/etc/passwd' }),
    ],
    ['a native media handle', '/switchyard/v1/stream', media({ type: 'handle', handle: 'artifact-1' })],
    [
      'a native provider part (custom) holding a gs:// fileData',
      '/switchyard/v1/stream',
      geminiPart({ fileData: { mimeType: 'application/pdf', fileUri: 'gs://operator-bucket/x.pdf' } }),
    ],
    [
      'a native provider part (custom) holding a file:/ URI',
      '/switchyard/v1/stream',
      geminiPart({ fileData: { mimeType: 'text/plain', fileUri: 'file:/etc/passwd' } }),
    ],
  ];

  it.each(rows)('%s is a 400 and nothing reaches the upstream', async (_, path, body) => {
    const before = harness.emulator.requests.length;
    const response = await post(path, JSON.stringify(body));
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(
      /media or file (URI must be http, https, data|handle is not accepted)|a URI in a provider part must be http, https, data/,
    );
    expect(harness.emulator.requests.length).toBe(before);
  });

  it('text in a provider part that only begins like a scheme (`file: notes`), or an https URL, is no refused URI', async () => {
    harness.emulator.enqueue(hello('Read.'));
    const text = 'file: notes.txt, see https://example.com/a';
    const response = await post('/switchyard/v1/stream', JSON.stringify(geminiPart({ text })));
    expect(response.status).toBe(200);
    await response.text();
    expect(JSON.stringify(harness.emulator.requests.at(-1)!.body)).toContain(text);
  });

  it('a scheme the operator allows (gateway.media_uri_schemes) reaches the upstream as written', async () => {
    const gateway = createEmulatedGateway(harness.emulator.url, {
      logger: { warn: () => {} },
      adapters: { gemini: 'gemini' },
      apiKey: 'k',
      config: {
        models: { 'gemini:gemini-2.5-flash': { aliases: ['media-gemini'] } },
        gateway: { media_uri_schemes: ['GS'] },
      },
    });
    const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
    try {
      harness.emulator.enqueue(hello('Read.'));
      const response = await fetch(`${server.url}/v1beta/models/media-gemini:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          contents: [
            { role: 'user', parts: [{ fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/x.pdf' } }] },
          ],
        }),
      });
      expect(response.status).toBe(200);
      expect(JSON.stringify(harness.emulator.requests.at(-1)!.body)).toContain('gs://b/x.pdf');
    } finally {
      await server.close();
    }
  });
});

describe('absurd nesting and __proto__ keys in a body', () => {
  let own: GatewayHarness;
  beforeAll(async () => {
    own = await startGatewayHarness();
  });
  afterAll(async () => {
    await own?.close();
  });
  const send = (path: string, body: string) =>
    fetch(`${own.server.url}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
  /** `{"type":"object","properties":{"a": … }}` nested `depth` times. */
  const deepSchema = (depth: number) =>
    `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`;
  const geminiTool = (schema: string) =>
    `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":${schema}}]}]}`;
  it.each([
    ['/v1beta/models/up-chat:generateContent', geminiTool(deepSchema(20_000))],
    ['/v1beta/models/up-chat:countTokens', geminiTool(deepSchema(20_000))],
    [
      '/v1/messages/count_tokens',
      `{"model":"up-chat","messages":[{"role":"user","content":"Hi"}],"tools":[{"name":"f","input_schema":${deepSchema(20_000)}}]}`,
    ],
  ])('%s: 20,000 levels is a 400 naming the path, not a stack overflow (500)', async (path, body) => {
    const before = own.emulator.requests.length;
    const response = await send(path, body);
    expect(response.status).toBe(400);
    const text = await response.text();
    // The path is the client's own, its middle elided: the message stays short.
    expect(text).toMatch(/tools\.0\.[a-zA-Z_.0-9]+\.…\.[a-zA-Z_.0-9]+: nested deeper than 512 levels/);
    expect(text.length).toBeLessThan(1000);
    expect(own.emulator.requests.length).toBe(before);
  });

  it('a __proto__ property in a Gemini schema is refused by its path in the body', async () => {
    const response = await send(
      '/v1beta/models/up-chat:generateContent',
      geminiTool('{"type":"object","properties":{"__proto__":{"type":"string"}}}'),
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      'tools.0.functionDeclarations.0.parameters.properties.__proto__: the key \\"__proto__\\" is not allowed',
    );
  });
});

describe('model names that are built-in property names', () => {
  it.each([
    'openai:constructor',
    'anthropic:toString',
    'openai:hasOwnProperty-latest',
    'openai:__proto__-20250101',
  ])('%s is answered as any other model name: sent to its provider as it is (never a 500)', async (model) => {
    harness.emulator.enqueue(hello());
    const response = await post('/v1/chat/completions', chatBody({ model }));
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)?.body as { model: string };
    expect(sent.model).toBe(model.slice(model.indexOf(':') + 1));
  });
});

describe('a stored Responses conversation is bounded', () => {
  it('one over the body limit is not stored and the reply says store: false; a chain of requests under the limit cannot grow it past the limit', async () => {
    const turn = (input: string, previous?: string) => {
      harness.emulator.enqueue(hello('Noted.'));
      return post(
        '/v1/responses',
        JSON.stringify({
          model: 'up-chat',
          input,
          ...(previous === undefined ? {} : { previous_response_id: previous }),
        }),
      );
    };
    const first = await turn('x'.repeat(2500));
    expect(first.status).toBe(200);
    const firstBody = (await first.json()) as { id: string; store: boolean };
    expect(firstBody.store).toBe(true);
    const second = await turn('y'.repeat(2500), firstBody.id);
    expect(second.status).toBe(200);
    const secondBody = (await second.json()) as { id: string; store: boolean };
    expect(secondBody.store).toBe(false);
    const third = await post(
      '/v1/responses',
      JSON.stringify({ model: 'up-chat', input: 'z', previous_response_id: secondBody.id }),
    );
    expect(third.status).toBe(404);
  });
});

it('tools the gateway does not offer are one WARN per request, with a count and the first few details cut to 200 characters', async () => {
  const before = harness.logger.entries.length;
  harness.emulator.enqueue(hello());
  const tools = [
    { type: `x${'y'.repeat(300)}` },
    ...Array.from({ length: 39 }, (_, index) => ({ type: `x${index}` })),
  ];
  const response = await post('/v1/responses', JSON.stringify({ model: 'up-chat', input: 'Hi', tools }));
  expect(response.status).toBe(200);
  const lines = harness.logger.entries
    .slice(before)
    .filter((entry) => entry.message === 'gateway: part of the request was left out');
  expect(lines).toHaveLength(1);
  expect(lines[0]!.fields).toMatchObject({ count: 40 });
  const details = lines[0]!.fields.details as string[];
  expect(details).toHaveLength(5);
  for (const detail of details) expect(detail.length).toBeLessThanOrEqual(201);
});

it.each(['gzip', 'br', 'deflate'])(
  'a body sent with content-encoding %s is a 415 saying so (never inflated), in the protocol’s error shape',
  async (coding) => {
    const response = await post('/v1/messages', '\u001f\u008b\u0008', { 'content-encoding': coding });
    expect(response.status).toBe(415);
    const body = (await response.json()) as { type: string; error: { message: string } };
    expect(body.type).toBe('error');
    expect(body.error.message).toContain(`content-encoding '${coding}' is not accepted`);
  },
);

it('a store that fails after the upstream call costs the next turn, never this reply: a 200 that says store: false', async () => {
  const failing = {
    get: async () => undefined,
    put: async () => {
      throw new Error('store down');
    },
  };
  const gateway = gatewayWithStore(harness.emulator.url, failing);
  harness.emulator.enqueue(hello('Paid for.'));
  const response = await gateway.app.request('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'store-chat', input: 'Hi' }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    store: boolean;
    output: Array<{ content: Array<{ text: string }> }>;
  };
  expect(body.store).toBe(false);
  expect(body.output[0]!.content[0]!.text).toBe('Paid for.');
});

it.each([
  ['not an object', 42],
  ['a transcript that is not a list', { transcript: 5 }],
  ['an item without parts', { transcript: [{ kind: 'user' }] }],
  ['a part that is not an object', { transcript: [{ kind: 'assistant', parts: [null] }] }],
  ['artifacts of the wrong types', { signature: 5, reasoning: 'x' }],
  [
    'a tool call without an id',
    { transcript: [{ kind: 'assistant', parts: [{ type: 'tool-call', name: 'f' }] }] },
  ],
  ['an item of an unknown kind', { transcript: [{ kind: 'robot', parts: [{ type: 'text', text: 'x' }] }] }],
])('a value another writer left in the store (%s) is no value: never a 500', async (_, planted) => {
  const gateway = gatewayWithStore(harness.emulator.url, { get: async () => planted, put: async () => {} });
  const continued = await gateway.app.request('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'store-chat', input: 'Hi', previous_response_id: 'resp_1' }),
  });
  expect(continued.status).toBe(404);
  harness.emulator.enqueue(hello('With history.'));
  const chat = await gateway.app.request('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'store-chat',
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
      ],
    }),
  });
  expect(chat.status).toBe(200);
});

it.each(['identity', 'IDENTITY', 'identity, identity', ''])(
  'content-encoding %j is a body as it is',
  async (coding) => {
    harness.emulator.enqueue(hello());
    const response = await post('/v1/chat/completions', chatBody(), { 'content-encoding': coding });
    expect(response.status).toBe(200);
  },
);

it('a Responses reply that fails in-band is not stored, and its response.failed says store: false', async () => {
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'Let me call' }],
    finishReason: 'MALFORMED_FUNCTION_CALL',
  });
  const response = await post(
    '/v1/responses',
    JSON.stringify({ model: 'up-gemini', input: 'Hi', stream: true }),
  );
  const text = await response.text();
  const failed = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; response?: { id: string; store: boolean } })
    .find((event) => event.type === 'response.failed');
  expect(failed?.response?.store).toBe(false);
  const next = await post(
    '/v1/responses',
    JSON.stringify({ model: 'up-gemini', input: 'again', previous_response_id: failed!.response!.id }),
  );
  expect(next.status).toBe(404);
});

interface WireEvent {
  type: string;
  item?: { type: string; status: string; content: Array<{ text: string }> };
  response?: { output: unknown[] };
}

it('a Responses stream cut mid-answer: the message item cut short says status incomplete, in output_item.done and response.failed', async () => {
  harness.emulator.enqueue({
    type: 'scripted',
    chunkSize: 4,
    content: [{ type: 'text', text: 'A long answer that is cut' }],
    fault: { disconnectAfterEvents: 4 },
  });
  const response = await post(
    '/v1/responses',
    JSON.stringify({ model: 'up-chat', input: 'Hi', stream: true }),
  );
  const events = (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as WireEvent);
  const done = events.find((event) => event.type === 'response.output_item.done');
  const failed = events.find((event) => event.type === 'response.failed');
  expect(done?.item).toMatchObject({ type: 'message', status: 'incomplete' });
  expect(failed?.response?.output).toEqual([done?.item]);
  expect(done?.item?.content[0]?.text.length).toBeGreaterThan(0);
});

it('media in a Gemini functionResponse.parts reach the upstream inside the tool result (they were dropped)', async () => {
  harness.emulator.enqueue(hello());
  const png = Buffer.from('fake png bytes').toString('base64');
  const body = {
    contents: [
      { role: 'user', parts: [{ text: 'Take a picture' }] },
      { role: 'model', parts: [{ functionCall: { name: 'camera', args: {} } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              name: 'camera',
              response: { ok: 1 },
              parts: [{ inlineData: { mimeType: 'image/png', data: png } }],
            },
          },
        ],
      },
    ],
    tools: [{ functionDeclarations: [{ name: 'camera', parameters: { type: 'object', properties: {} } }] }],
  };
  const response = await post('/v1beta/models/up-anthropic:generateContent', JSON.stringify(body));
  expect(response.status).toBe(200);
  const sent = JSON.stringify(harness.emulator.requests.at(-1)?.body);
  expect(sent).toContain('"type":"tool_result"');
  expect(sent).toContain(png);
});

it('a functionResponse part of another kind is refused by its path', async () => {
  const body = {
    contents: [
      { role: 'user', parts: [{ text: 'Go' }] },
      { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: {}, parts: [{ text: 'x' }] } }] },
    ],
  };
  const response = await post('/v1beta/models/up-anthropic:generateContent', JSON.stringify(body));
  expect(response.status).toBe(400);
  expect(await response.text()).toContain('contents.2.parts.0.functionResponse.parts.0');
});

it('a tool-call id longer than OpenAI’s 40 characters (written by another provider) reaches Chat Completions as a digest, still paired', async () => {
  const long = `toolu_vrtx_${'A1b2C3d4'.repeat(6)}`; // 59 characters
  harness.emulator.enqueue(hello());
  const response = await post(
    '/v1/messages',
    JSON.stringify({
      model: 'up-chat',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: long, name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: long, content: 'sunny' }] },
      ],
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
    }),
  );
  expect(response.status).toBe(200);
  const sent = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
  };
  const id = sent.messages[1]!.tool_calls![0]!.id;
  expect(id.length).toBeLessThanOrEqual(40);
  expect(sent.messages[2]!.tool_call_id).toBe(id);
});

it('a tool-call id longer than the Responses API’s 64 characters (an MCP tool’s, another provider’s) reaches it as a digest, the same on the call and its output', async () => {
  const long = `mcp__filesystem__read_file__${'A1b2C3d4'.repeat(6)}`; // 76 characters
  harness.emulator.enqueue(hello());
  const response = await post(
    '/v1/messages',
    JSON.stringify({
      model: 'up-responses',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'Read it.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: long, name: 'read_file', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: long, content: 'text' }] },
      ],
      tools: [{ name: 'read_file', input_schema: { type: 'object' } }],
    }),
  );
  expect(response.status).toBe(200);
  const sent = harness.emulator.requests.at(-1)!.body as {
    input: Array<{ type?: string; call_id?: string }>;
  };
  const call = sent.input.find((item) => item.type === 'function_call')!;
  const output = sent.input.find((item) => item.type === 'function_call_output')!;
  expect(call.call_id!.length).toBeLessThanOrEqual(64);
  expect(output.call_id).toBe(call.call_id);
});

describe('tool-call numbers past a double’s precision (a 19-digit id)', () => {
  const exact = '{"user_id": 1234567890123456789, "note": "x"}';
  /** A whole Chat upstream reply: one call whose arguments text is `exact`. */
  const toolCallReply = {
    type: 'json' as const,
    body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-5-mini","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":${JSON.stringify(exact)}}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
  };

  it('a whole Chat reply gives the client the model’s arguments text exactly, not re-serialized', async () => {
    harness.emulator.enqueue(toolCallReply);
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({
        model: 'up-chat',
        messages: [{ role: 'user', content: 'Look up the user.' }],
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      }),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> } }>;
    };
    expect(body.choices[0]!.message.tool_calls[0]!.function.arguments).toBe(exact);
  });

  it.each([
    [
      'an Anthropic client',
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Look up the user.' }],
        tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      },
    ],
    [
      'a Gemini client',
      '/v1beta/models/up-chat:generateContent',
      {
        contents: [{ role: 'user', parts: [{ text: 'Look up the user.' }] }],
        tools: [{ functionDeclarations: [{ name: 'lookup', parameters: { type: 'object' } }] }],
      },
    ],
  ])(
    '%s gets the number exactly in its arguments object (written as the model wrote it)',
    async (_, path, body) => {
      harness.emulator.enqueue(toolCallReply);
      const response = await post(path, JSON.stringify(body), { 'anthropic-version': '2023-06-01' });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('"user_id":1234567890123456789');
    },
  );

  it('a Chat client’s replayed call reaches a Chat upstream with its arguments text exactly', async () => {
    expect(await replayedArguments('lookup', exact)).toBe(exact);
  });
});

it('a replayed call whose arguments text holds a "__proto__" key (as a model wrote it, served as text) is taken: the upstream gets the text as written', async () => {
  const text = '{"code":"obj.__proto__ = x","__proto__":{"polluted":true}}';
  expect(await replayedArguments('run', text)).toBe(text);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

it('previous_response_id carries the earlier turns’ developer messages from input (only instructions are per turn)', async () => {
  harness.emulator.enqueue(hello('Bonjour'));
  const first = await post(
    '/v1/responses',
    JSON.stringify({
      model: 'up-chat',
      instructions: 'You are terse.',
      input: [
        { role: 'developer', content: 'Always answer in French.' },
        { role: 'user', content: 'hi' },
      ],
    }),
  );
  expect(first.status).toBe(200);
  const { id } = (await first.json()) as { id: string };
  harness.emulator.enqueue(hello('Encore'));
  const second = await post(
    '/v1/responses',
    JSON.stringify({ model: 'up-chat', instructions: 'Be brief.', input: 'again', previous_response_id: id }),
  );
  expect(second.status).toBe(200);
  const sent = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ role: string; content: unknown }>;
  };
  expect(sent.messages).toEqual([
    { role: 'developer', content: 'Be brief.\n\nAlways answer in French.' },
    { role: 'user', content: 'hi' },
    expect.objectContaining({ role: 'assistant', content: 'Bonjour' }),
    { role: 'user', content: 'again' },
  ]);
});

it('a body sent with transfer-encoding gzip, chunked is a 415 saying so (Node removes only the chunking), not a JSON error', async () => {
  const { port } = new URL(harness.server.url);
  const reply = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(
        'POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
          'anthropic-version: 2023-06-01\r\ntransfer-encoding: gzip, chunked\r\nconnection: close\r\n\r\n' +
          '3\r\n\u001f\u008b\u0008\r\n0\r\n\r\n',
        'latin1',
      ),
    );
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  expect(reply).toMatch(/^HTTP\/1\.1 415 /);
  expect(reply).toContain("transfer-encoding 'gzip, chunked' is not accepted");
});
