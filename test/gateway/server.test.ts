/**
 * The gateway's own behaviour: limits and refusals in each protocol's error shape, keys as each
 * protocol sends them, loopback-only without keys, operations endpoints, request ids, the
 * overhead header, stored Responses, model listings, token counting and the native stream.
 */
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway } from 'switchyard-ai/gateway';
import { createMemoryStateStore } from 'switchyard-ai/state';
import { anthropicError, openaiError } from 'switchyard-ai/testing';
import {
  createClients,
  type GatewayHarness,
  rawConnection as rawSocket,
  startGatewayHarness,
} from './harness.ts';

let harness: GatewayHarness;
const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;
const hello = (text = 'Hello.') => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text }],
  usage: { input: 3, output: 2 },
});

beforeAll(async () => {
  process.env.GATEWAY_TEST_OPS_KEY = 'ops-key-2';
  harness = await startGatewayHarness({
    body_limit_bytes: 4096,
    keys: [
      { name: 'team', key: digest('team-key-1'), models: ['up-chat', 'up-responses', 'up-gemini'] },
      { name: 'ops', key_env: 'GATEWAY_TEST_OPS_KEY', admin: true },
      { name: 'haiku', key: digest('haiku-key'), models: ['up-fallback'] },
      { name: 'globbed', key: digest('glob-key'), models: ['up-c*'] },
      { name: 'haiku-and-chat', key: digest('both-key'), models: ['up-fallback', 'up-chat'] },
    ],
  });
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  // Worker processes run many files: the variable set above goes with this file.
  delete process.env.GATEWAY_TEST_OPS_KEY;
  await harness?.close();
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${harness.server.url}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', authorization: 'Bearer ops-key-2', ...headers },
  });
/** GET /metrics with the admin key (with keys configured, only an admin key may read it). */
const scrapeMetrics = () =>
  fetch(`${harness.server.url}/metrics`, { headers: { authorization: 'Bearer ops-key-2' } });
/** A raw socket to the gateway: what it has received so far, and when it closed. */
const rawConnection = () => rawSocket(harness.server.url);

const chatBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }], ...extra });

describe('keys and fallbacks', () => {
  it.each([
    ['haiku-key', 'may not use the fallback: the upstream’s 429 is passed on', 429, 1],
    ['both-key', 'may use the fallback (by its alias): it answers', 200, 2],
  ])('a key %s %s', async (key, _, status, upstreamCalls) => {
    const before = harness.emulator.requests.length;
    harness.emulator.enqueue(anthropicError(429, 'rate_limit_error', 'slow down'));
    harness.emulator.enqueue(hello('Served by the fallback.'));
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'up-fallback', messages: [{ role: 'user', content: 'Hi' }] }),
      { authorization: `Bearer ${key}` },
    );
    expect(response.status).toBe(status);
    expect(harness.emulator.requests.length - before).toBe(upstreamCalls);
    // A fallback the key may not use is not named to it.
    expect(await response.text()).not.toContain('gpt-5-mini');
  });
});

describe('limits and refusals', () => {
  it.each([
    ['/v1/chat/completions', (body: Record<string, unknown>) => (body.error as { message: string }).message],
    [
      '/v1/messages',
      (body: Record<string, unknown>) => (body as { type: string; error: { message: string } }).error.message,
    ],
    [
      '/v1beta/models/up-chat:generateContent',
      (body: Record<string, unknown>) => (body.error as { status: string; message: string }).message,
    ],
  ])('malformed JSON to %s is a 400 in that protocol’s shape', async (path, messageOf) => {
    const response = await post(path, '{"model": ');
    expect(response.status).toBe(400);
    expect(messageOf((await response.json()) as Record<string, unknown>)).toMatch(/not valid JSON/);
  });

  it.each([
    [
      '/v1/chat/completions',
      { model: 'up-chat', messages: [{ role: 'tool', tool_call_id: 'call_x', content: 'ok' }] },
      'messages.0.tool_call_id',
    ],
    [
      '/v1/chat/completions',
      {
        model: 'up-chat',
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f' } }] },
          { role: 'user', content: 'and?' },
        ],
      },
      'messages.1.tool_calls.0.id',
    ],
    [
      '/v1/responses',
      { model: 'up-responses', input: [{ type: 'function_call_output', call_id: 'call_x', output: 'ok' }] },
      'input.0.call_id',
    ],
    [
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 5,
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'ok' }] },
        ],
      },
      'messages.0.content.0.tool_use_id',
    ],
    [
      '/v1beta/models/up-gemini:generateContent',
      { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'nope', response: {} } }] }] },
      'contents.0.parts.0.functionResponse',
    ],
  ])(
    '%s: a tool result answering no call, or a call never answered, is a 400 naming the client’s field',
    async (path, body, field) => {
      const upstreamBefore = harness.emulator.requests.length;
      const response = await post(path, JSON.stringify(body));
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).toContain(field);
      expect(text).not.toContain('transcript');
      expect(harness.emulator.requests.length).toBe(upstreamBefore);
    },
  );

  it.each([
    ['GET', '/v1/chat/completions', 'POST', (body: { error: { type: string } }) => body.error.type],
    ['DELETE', '/v1/messages', 'POST', (body: { error: { type: string } }) => body.error.type],
    [
      'GET',
      '/v1beta/models/up-gemini:generateContent',
      'POST',
      (body: { error: { status: string } }) => body.error.status,
    ],
    ['POST', '/healthz', 'GET', (body: { error: { type: string } }) => body.error.type],
    ['PUT', '/v1/models', 'GET', (body: { error: { type: string } }) => body.error.type],
    // A model path's `allow` names only what is served there: GET for a model, POST for a Gemini method.
    [
      'PUT',
      '/v1beta/models/up-gemini:generateContent',
      'POST',
      (body: { error: { status: string } }) => body.error.status,
    ],
    ['PUT', '/v1/models/up-chat', 'GET', (body: { error: { type: string } }) => body.error.type],
  ] as const)(
    '%s %s: 405 with allow: %s, in the path’s protocol shape',
    async (method, path, allow, kindOf) => {
      const response = await fetch(`${harness.server.url}${path}`, {
        method,
        headers: { authorization: 'Bearer ops-key-2', 'x-goog-api-key': 'ops-key-2' },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      expect(kindOf((await response.json()) as never)).toBe(
        path.startsWith('/v1beta') ? 'INVALID_ARGUMENT' : 'invalid_request_error',
      );
    },
  );

  it('a wrong method on a keyed path without a key is a 401; HEAD takes a GET route', async () => {
    const keyless = await fetch(`${harness.server.url}/v1/chat/completions`);
    expect(keyless.status).toBe(401);
    const head = await fetch(`${harness.server.url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('a body above the limit is a 413', async () => {
    const response = await post('/v1/chat/completions', chatBody({ padding: 'x'.repeat(5000) }));
    expect(response.status).toBe(413);
  });

  it('a chunked body (no declared length) is counted as it arrives: 413 above the limit, served below it', async () => {
    const chunked = (text: string) =>
      fetch(`${harness.server.url}/v1/chat/completions`, {
        method: 'POST',
        body: new ReadableStream({
          start(controller) {
            for (let at = 0; at < text.length; at += 1000)
              controller.enqueue(new TextEncoder().encode(text.slice(at, at + 1000)));
            controller.close();
          },
        }),
        duplex: 'half',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ops-key-2' },
      } as RequestInit);
    expect((await chunked(chatBody({ padding: 'x'.repeat(5000) }))).status).toBe(413);
    harness.emulator.enqueue(hello());
    expect((await chunked(chatBody())).status).toBe(200);
  });

  it.each([
    ['n', { n: 2 }],
    ['logprobs', { logprobs: true }],
    ['modalities', { modalities: ['text', 'audio'] }],
    ['audio', { audio: { voice: 'alloy', format: 'wav' } }],
  ])('%s that cannot be honoured is a 400 naming the field', async (field, extra) => {
    const response = await post('/v1/chat/completions', chatBody(extra));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; param: string } };
    expect(body.error.param).toBe(field);
    expect(body.error.message).toContain(field);
  });

  it.each([
    ['background', { background: true }],
    ['conversation', { conversation: 'conv_1' }],
    ['prompt', { prompt: { id: 'pmpt_1' } }],
  ])('Responses %s that cannot be honoured is a 400 naming the field', async (field, extra) => {
    const before = harness.emulator.requests.length;
    const response = await post('/v1/responses', JSON.stringify({ model: 'up-chat', input: 'Hi', ...extra }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; param: string } };
    expect(body.error.param).toBe(field);
    expect(body.error.message).toContain(field);
    expect(harness.emulator.requests).toHaveLength(before);
  });

  it('fields a newer SDK adds are ignored, never a 400', async () => {
    harness.emulator.enqueue(hello());
    const response = await post(
      '/v1/chat/completions',
      chatBody({ future_option: { anything: true }, n: 1 }),
    );
    expect(response.status).toBe(200);
  });

  it('an upstream error reaches the client with its reason but without the upstream’s URL or address', async () => {
    harness.emulator.enqueue(openaiError(400, 'the upstream disliked this'));
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(400);
    const { message } = ((await response.json()) as { error: { message: string } }).error;
    expect(message).toContain('the upstream disliked this');
    expect(message).toContain('the upstream request failed with 400');
    const upstream = new URL(harness.emulator.url);
    expect(message).not.toContain(upstream.host);
    expect(message).not.toMatch(/https?:\/\//);
  });

  it('an unknown model is a 404 in the client’s shape', async () => {
    const response = await post('/v1/chat/completions', chatBody({ model: 'no-such-model' }));
    expect(response.status).toBe(404);
  });

  it('an unknown model a key limited by a glob may ask for is a 404 without the registry’s “did you mean” (another tenant’s name)', async () => {
    const ask = async (key: string) => {
      const response = await post('/v1/chat/completions', chatBody({ model: 'up-cnthropic' }), {
        authorization: `Bearer ${key}`,
      });
      expect(response.status).toBe(404);
      return ((await response.json()) as { error: { message: string } }).error.message;
    };
    // A key that may use every model is told the closest name: here one outside `up-c*`.
    expect(await ask('ops-key-2')).toMatch(/did you mean "up-anthropic"/);
    const limited = await ask('glob-key');
    expect(limited).toMatch(/unknown model "up-cnthropic"/);
    expect(limited).not.toMatch(/did you mean|up-anthropic/);
  });
});

describe('keys', () => {
  it('every protocol’s way of sending a key works with the official SDKs', async () => {
    const clients = createClients(harness.server.url, 'team-key-1');
    harness.emulator.enqueue(hello('via bearer'));
    const chat = await clients.openai.chat.completions.create({
      model: 'up-chat',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(chat.choices[0]!.message.content).toBe('via bearer');
    harness.emulator.enqueue(hello('via x-goog-api-key'));
    const gemini = await clients.google.models.generateContent({ model: 'up-gemini', contents: 'Hi' });
    expect(gemini.text).toBe('via x-goog-api-key');
    const ops = createClients(harness.server.url, 'ops-key-2');
    harness.emulator.enqueue(hello('via x-api-key'));
    const message = await ops.anthropic.messages.create({
      model: 'up-anthropic',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'via x-api-key' }]);
    harness.emulator.enqueue(hello('via ?key='));
    const query = await fetch(`${harness.server.url}/v1beta/models/up-chat:generateContent?key=team-key-1`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
    });
    expect(query.status).toBe(200);
  });

  it('a wrong or missing key is a 401; a model outside the key’s list is a 403', async () => {
    const wrong = createClients(harness.server.url, 'not-a-key');
    await expect(
      wrong.anthropic.messages.create({
        model: 'up-chat',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).rejects.toMatchObject({ status: 401 });
    expect((await fetch(`${harness.server.url}/v1/models`)).status).toBe(401);
    // An unknown route under a keyed prefix is refused before it is looked up.
    expect((await fetch(`${harness.server.url}/v1/no-such-route`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${harness.server.url}/switchyard/v1/nothing`)).status).toBe(401);
    const team = createClients(harness.server.url, 'team-key-1');
    await expect(
      team.openai.chat.completions.create({
        model: 'up-anthropic',
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('the fixed-path routes answer alike served directly by the gateway’s server and through its Hono app', async () => {
    const viaApp = (path: string, headers: Record<string, string>) =>
      harness.app.request(path, {
        method: 'POST',
        body: chatBody(),
        headers: { 'content-type': 'application/json', ...headers },
      });
    const viaServer = (path: string, headers: Record<string, string>) =>
      fetch(`${harness.server.url}${path}`, {
        method: 'POST',
        body: chatBody(),
        headers: { 'content-type': 'application/json', ...headers },
      });
    for (const send of [viaApp, viaServer]) {
      // No key, a wrong key: 401 in the protocol's shape, with the request id echoed.
      const refused = await send('/v1/chat/completions', {
        'x-request-id': 'req-1',
        authorization: 'Bearer nope',
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('x-request-id')).toBe('req-1');
      expect(((await refused.json()) as { error: { type: string } }).error.type).toBeTypeOf('string');
      const anthropic = await send('/v1/messages', {});
      expect(anthropic.status).toBe(401);
      expect(((await anthropic.json()) as { type: string }).type).toBe('error');
      // A key in the query (a path with a query string goes the general way) or a header.
      harness.emulator.enqueue(hello('by query'));
      const byQuery = await send('/v1/chat/completions?key=team-key-1', {});
      expect(
        ((await byQuery.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message
          .content,
      ).toBe('by query');
      harness.emulator.enqueue(hello('by header'));
      const byHeader = await send('/v1/chat/completions', { authorization: 'Bearer team-key-1' });
      expect(byHeader.status).toBe(200);
      expect(byHeader.headers.get('content-type')).toBe('application/json');
      if (send === viaServer)
        expect(Number(byHeader.headers.get('content-length'))).toBe((await byHeader.clone().text()).length);
      expect(
        ((await byHeader.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message
          .content,
      ).toBe('by header');
    }
    // Another method at a fixed path is the general router's answer (a 405 in the protocol's shape).
    const get = await fetch(`${harness.server.url}/v1/chat/completions`, {
      headers: { authorization: 'Bearer team-key-1' },
    });
    expect(get.status).toBe(405);
  });

  it('the Gemini generation routes answer alike served directly by the gateway’s server and through its Hono app', async () => {
    const geminiBody = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
    const viaApp = (path: string, headers: Record<string, string> = {}) =>
      harness.app.request(path, { method: 'POST', body: geminiBody, headers });
    const viaServer = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${harness.server.url}${path}`, { method: 'POST', body: geminiBody, headers });
    const textOf = (body: unknown) =>
      (body as { candidates: { content: { parts: { text: string }[] } }[] }).candidates[0]!.content.parts[0]!
        .text;
    for (const send of [viaApp, viaServer]) {
      const refused = await send('/v1beta/models/up-gemini:generateContent?key=nope', {
        'x-request-id': 'g-1',
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('x-request-id')).toBe('g-1');
      expect(((await refused.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
      harness.emulator.enqueue(hello('by query'));
      const whole = await send('/v1beta/models/up-gemini:generateContent?key=team-key-1');
      expect(whole.status).toBe(200);
      expect(textOf(await whole.json())).toBe('by query');
      // The API version is the client's; the model may be percent-encoded.
      harness.emulator.enqueue(hello('v1, by header'));
      const v1 = await send('/v1/models/up%2Dgemini:generateContent', { 'x-goog-api-key': 'team-key-1' });
      expect(textOf(await v1.json())).toBe('v1, by header');
      // Both ways log the path as the client sent it.
      await expect.poll(() => harness.accessLog.at(-1)?.path).toBe('/v1/models/up%2Dgemini:generateContent');
      harness.emulator.enqueue(hello('as SSE'));
      const sse = await send('/v1beta/models/up-gemini:streamGenerateContent?alt=sse&key=team-key-1');
      expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = (await sse.text()).split('\n\n').filter((frame) => frame.startsWith('data: '));
      expect(
        events
          .map((frame) => JSON.parse(frame.slice(6)) as unknown)
          .map(textOf)
          .join(''),
      ).toBe('as SSE');
      harness.emulator.enqueue(hello('as an array'));
      const array = await send('/v1beta/models/up-gemini:streamGenerateContent?key=team-key-1');
      expect(array.headers.get('content-type')).toBe('application/json');
      expect(((await array.json()) as unknown[]).map(textOf).join('')).toBe('as an array');
      // Decoded once on both ways (`%2541` is `%41`, not `A`); a malformed escape is an unknown model, not a 500.
      for (const model of ['m%2541', 'm%zz']) {
        const odd = await send(`/v1beta/models/${model}:generateContent?key=ops-key-2`);
        expect(odd.status).toBe(404);
        expect(((await odd.json()) as { error: { message: string } }).error.message).toContain(
          `unknown model "${model === 'm%2541' ? 'm%41' : 'm%zz'}"`,
        );
      }
      const unknown = await send('/v1beta/models/up-gemini:embedContent?key=team-key-1');
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe('unknown method');
    }
  });

  it('a refusal sent before the request body arrived closes the connection instead of reading the rest', async () => {
    const { socket, received, closed } = rawConnection();
    // A chunked body that never ends, without a key.
    socket.write(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"a":\r\n',
    );
    await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 401/);
    expect(received().toLowerCase()).toContain('connection: close');
  });

  it.each([
    [
      'headers over Node’s limit',
      `GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
    ],
    ['a request line that is not HTTP', 'HELLO THERE\r\n\r\n', 400],
    ['a bad header name', 'GET /healthz HTTP/1.1\r\nhost: x\r\nbad header: 1\r\n\r\n', 400],
    // Requests Node parses but @hono/node-server cannot read, and those Node answers itself.
    [
      'a Host that is no host name',
      'GET /v1/models HTTP/1.1\r\nhost: a b\r\nauthorization: Bearer ops-key-2\r\n\r\n',
      400,
    ],
    [
      'a backslash in the path',
      'GET /v1\\models HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ops-key-2\r\n\r\n',
      400,
    ],
    [
      'an Expect other than 100-continue',
      'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nexpect: foo\r\ncontent-length: 2\r\n\r\n{}',
      417,
    ],
    ['a CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n', 405],
  ])(
    '%s: a status with an error body in OpenAI’s shape (never an empty reply), then the connection closes',
    async (_, raw, status) => {
      const { socket, received, closed } = rawConnection();
      socket.write(raw);
      await closed;
      const [head, body] = received().split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head?.toLowerCase()).toContain('connection: close');
      const parsed = JSON.parse(body ?? '') as { error: { message: string; type: string } };
      expect(parsed.error.type).toBe('invalid_request_error');
      expect(parsed.error.message.length).toBeGreaterThan(0);
    },
  );

  it.each(['/v1/messages/count_tokens', '/v1/chat/completions?stream=1', '/switchyard/v1/stream'])(
    'a 413 from a route the Hono app serves (%s), before the body arrived, closes the connection',
    async (path) => {
      const { socket, received, closed } = rawConnection();
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ops-key-2\r\ncontent-type: application/json\r\ncontent-length: 10000000000\r\n\r\n{"a":`,
      );
      await closed;
      expect(received()).toMatch(/^HTTP\/1\.1 413/);
      expect(received().toLowerCase()).toContain('connection: close');
    },
  );

  it('GET routes the Hono app serves keep the connection alive for the next request', async () => {
    const { socket, received } = rawConnection();
    socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\nGET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
    await vi.waitFor(() => expect(received().match(/HTTP\/1\.1 200/g)).toHaveLength(2));
    expect(received().toLowerCase()).not.toContain('connection: close');
    socket.destroy();
  });

  it('a refused request with a small declared body keeps its connection for the next request', async () => {
    const { socket, received } = rawConnection();
    const request =
      'POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
    socket.write(request + request);
    await vi.waitFor(() => expect(received().match(/HTTP\/1\.1 401/g)).toHaveLength(2));
    expect(received().toLowerCase()).not.toContain('connection: close');
    socket.destroy();
  });

  it.each([
    ['/v1/messages', 'anthropic-messages', /"type":"invalid_request_error"/],
    ['/v1beta/models/up-gemini:generateContent', 'gemini', /"status":"INVALID_ARGUMENT"/],
    ['/v1/messages/count_tokens', 'the Hono app’s route', /"type":"invalid_request_error"/],
  ])(
    'an HTTP/1.1 request to %s without a Host header is a 400 with a JSON body (%s), then the connection closes',
    async (path, _, shape) => {
      const { socket, received, closed } = rawConnection();
      socket.write(`POST ${path} HTTP/1.1\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`);
      await closed;
      const [head, body] = received().split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head?.toLowerCase()).toContain('connection: close');
      expect(body).toMatch(shape);
      expect(body).toContain('Host header');
    },
  );

  it('an HTTP/1.0 request may leave out Host', async () => {
    const { socket, received, closed } = rawConnection();
    socket.write('GET /healthz HTTP/1.0\r\n\r\n');
    await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('a Gemini model name holding a line break is a 400 naming the model, not an unknown method', async () => {
    const response = await post(
      '/v1beta/models/up%0d%0agemini:generateContent',
      JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
    );
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).not.toContain('unknown method');
    expect(text).toMatch(/model/i);
  });

  describe('Expect: 100-continue', () => {
    const head = (path: string, headers: string) =>
      `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nexpect: 100-continue\r\n${headers}\r\n`;

    it.each([
      ['a missing key', '/v1/messages', 'content-length: 20\r\n', 401],
      [
        'a declared length over the limit',
        '/v1/chat/completions',
        'authorization: Bearer ops-key-2\r\ncontent-length: 10000\r\n',
        413,
      ],
      [
        'a route the Hono app serves, without a key',
        '/v1/messages/count_tokens',
        'content-length: 20\r\n',
        401,
      ],
    ])(
      '%s is answered before the body is sent, without a 100 Continue, and closes the connection',
      async (_, path, headers, status) => {
        const { socket, received, closed } = rawConnection();
        socket.write(head(path, headers));
        await closed;
        expect(received()).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
        expect(received()).not.toContain('100 Continue');
        expect(received().toLowerCase()).toContain('connection: close');
      },
    );

    it('an accepted request gets its 100 Continue before it sends the body, then the answer', async () => {
      harness.emulator.enqueue(hello('Continued.'));
      const body = chatBody();
      const { socket, received } = rawConnection();
      socket.write(
        head('/v1/chat/completions', `authorization: Bearer ops-key-2\r\ncontent-length: ${body.length}\r\n`),
      );
      await vi.waitFor(() => expect(received()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/));
      socket.write(body);
      await vi.waitFor(() => expect(received()).toContain('Continued.'));
      expect(received()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
      socket.destroy();
    });
  });

  it('with no keys configured, a non-loopback host is refused', async () => {
    const gateway = createGateway({ config: { builtins: false }, accessLog: () => {} });
    await expect(gateway.listen({ host: '0.0.0.0', port: 0 })).rejects.toThrow(/no gateway keys/);
    await gateway.switchyard.close();
  });
});

describe('operations', () => {
  it.each([
    ['no key', {}, 401],
    ['a key that is not an admin’s', { authorization: 'Bearer team-key-1' }, 403],
    ['an admin key', { authorization: 'Bearer ops-key-2' }, 200],
  ])('with keys configured, /metrics with %s is a %i', async (_, headers, status) => {
    const response = await fetch(`${harness.server.url}/metrics`, { headers });
    expect(response.status).toBe(status);
    const text = await response.text();
    if (status === 200) expect(text).toContain('switchyard_gateway_requests_total');
    else expect(text).not.toContain('switchyard_gateway');
  });

  it('/healthz, /readyz and /metrics', async () => {
    expect((await fetch(`${harness.server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${harness.server.url}/readyz`)).status).toBe(200);
    const metrics = await (await scrapeMetrics()).text();
    expect(metrics).toContain('switchyard_gateway_requests_total');
    expect(metrics).toContain('switchyard_gateway_in_flight_requests');
    expect(metrics).toContain('switchyard_gateway_circuit_state');
  });

  it.each([
    ['/v1/chat/completions', 'POST', 'openai-chat', 'served directly', 'generate'],
    ['/v1beta/models/up-gemini:generateContent', 'POST', 'gemini', 'served directly', 'generate'],
    ['/v1/models', 'GET', 'openai-chat', 'the Hono app’s route', 'models'],
  ])(
    'a request refused for its key (%s) is in the access log and the metrics (%s, %s)',
    async (path, method, protocol, _, route) => {
      const scrape = async () => await (await scrapeMetrics()).text();
      const counted = (text: string) =>
        Number(
          new RegExp(
            `switchyard_gateway_requests_total\\{protocol="${protocol}",model="unknown",status="401",route="${route}"\\} (\\d+)`,
          ).exec(text)?.[1] ?? 0,
        );
      const before = counted(await scrape());
      const logged = harness.accessLog.length;
      const response = await fetch(`${harness.server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: 'Bearer guessed-key' },
        ...(method === 'POST' ? { body: chatBody() } : {}),
      });
      expect(response.status).toBe(401);
      await expect.poll(() => harness.accessLog.length).toBe(logged + 1);
      const line = harness.accessLog.at(-1)!;
      expect(line).toMatchObject({ status: 401, errorClass: 'auth', protocol, path, key: null });
      expect(JSON.stringify(line)).not.toContain('guessed-key');
      expect(counted(await scrape())).toBe(before + 1);
    },
  );

  it('concurrent /metrics scrapes each show every circuit, when the availability store answers asynchronously (as Redis does)', async () => {
    const state = createMemoryStateStore({});
    const read = state.availability.get.bind(state.availability);
    let turn = 0;
    // Each read answers after a different number of event-loop turns: the scrapes interleave.
    state.availability.get = async (key) => {
      for (let wait = turn++ % 7; wait > 0; wait--) await new Promise((resolve) => setImmediate(resolve));
      return read(key);
    };
    const adapter = { type: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-unused-in-this-test' };
    const gateway = createGateway({
      state,
      accessLog: () => {},
      config: { builtins: false, adapters: { a: adapter, b: adapter, c: adapter }, models: { 'a:m': {} } },
    });
    const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
    try {
      const scrapes = await Promise.all(
        Array.from({ length: 12 }, async () => await (await fetch(`${server.url}/metrics`)).text()),
      );
      const series = (text: string) =>
        text.split('\n').filter((line) => line.startsWith('switchyard_gateway_circuit_state{')).length;
      expect(scrapes.map(series)).toEqual(Array.from({ length: 12 }, () => 9));
    } finally {
      await server.close(0);
      await gateway.switchyard.close();
    }
  });

  it('metrics label the canonical model id; names the registry does not know share one `unknown` series', async () => {
    harness.emulator.enqueue(hello());
    expect((await post('/v1/chat/completions', chatBody())).status).toBe(200);
    for (const name of ['made-up-1', 'made-up-2'])
      expect((await post('/v1/chat/completions', chatBody({ model: name }))).status).toBe(404);
    // `openai:` + any name resolves (to the upstream, which answers); it is counted under the provider.
    for (const name of ['openai:made-up-3', 'openai:made-up-4']) {
      harness.emulator.enqueue(hello());
      await post('/v1/chat/completions', chatBody({ model: name }));
    }
    const metrics = await (await scrapeMetrics()).text();
    expect(metrics).toMatch(
      /requests_total\{protocol="openai-chat",model="openai:gpt-5-mini",status="200",route="generate"\} \d/,
    );
    expect(metrics).toMatch(
      /requests_total\{protocol="openai-chat",model="unknown",status="404",route="generate"\} [2-9]/,
    );
    expect(metrics).toMatch(
      /requests_total\{protocol="openai-chat",model="openai:other",status="\d+",route="generate"\} [2-9]/,
    );
    expect(metrics).not.toContain('made-up');
  });

  it('counters are exact across scrapes: each request counted once, tokens summed, in-flight back to 0', async () => {
    const scrape = async () => await (await scrapeMetrics()).text();
    const value = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    const requests =
      /requests_total\{protocol="openai-chat",model="openai:gpt-5-mini",status="200",route="generate"\} (\d+)/;
    const output = /tokens_total\{protocol="openai-chat",model="openai:gpt-5-mini",kind="output"\} (\d+)/;
    const before = await scrape();
    for (let index = 0; index < 3; index++) {
      harness.emulator.enqueue(hello());
      expect((await post('/v1/chat/completions', chatBody())).status).toBe(200);
    }
    const middle = await scrape();
    expect(value(middle, requests) - value(before, requests)).toBe(3);
    expect(value(middle, output) - value(before, output)).toBeGreaterThan(0);
    // A scrape with no request between adds nothing (no sum is flushed twice).
    expect(value(await scrape(), requests)).toBe(value(middle, requests));
    expect(middle).toMatch(/in_flight_requests\{protocol="openai-chat"\} 0\b/);
  });

  it('a client that leaves a non-streamed request while the upstream thinks cancels the upstream call', async () => {
    harness.emulator.enqueue({ ...hello('too late'), fault: { delayHeadersMs: 30_000 } });
    const before = harness.emulator.requests.length;
    const served = harness.nextServed();
    const controller = new AbortController();
    const leaving = fetch(`${harness.server.url}/v1/chat/completions`, {
      method: 'POST',
      body: chatBody(),
      headers: { 'content-type': 'application/json', authorization: 'Bearer ops-key-2' },
      signal: controller.signal,
    }).catch((error: unknown) => error);
    // Leave once the upstream has the request (its headers are held back for 30 s).
    while (harness.emulator.requests.length === before)
      await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await leaving).toBeInstanceOf(Error);
    expect(await served).toMatchObject({ complete: false });
    await expect.poll(() => harness.accessLog.at(-1)?.status).toBe(499);
  });

  it.each([
    [
      'an Anthropic',
      '/v1/messages',
      { model: 'up-anthropic', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
    ],
    [
      'a Gemini',
      '/v1beta/models/up-anthropic:streamGenerateContent?alt=sse',
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
    ],
  ])(
    '%s client: an upstream that opens empty part after empty part has its headers sent past 1,024 held events, not held without bound waiting for content',
    async (_, path, request) => {
      const block = (index: number) => [
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
      ];
      const start = {
        type: 'message_start',
        message: {
          id: 'msg_flood',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      };
      const events = [
        { event: 'message_start', data: start },
        ...Array.from({ length: 2000 }, (_, index) => block(index)).flat(),
      ];
      // Every empty block arrives, then nothing (no content ever): the client must have its headers.
      harness.emulator.enqueue({ type: 'sse', events, fault: { stallAfterEvents: events.length } });
      const logged = harness.accessLog.length;
      const response = await post(path, JSON.stringify(request), { 'anthropic-version': '2023-06-01' });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      // Anthropic frames every empty block (they arrive); Gemini has no frame for one (headers only).
      if (path === '/v1/messages')
        expect(new TextDecoder().decode((await reader.read()).value)).toContain('content_block_start');
      await reader.cancel();
      await expect.poll(() => harness.accessLog.slice(logged).map((line) => line.status)).toEqual([499]);
    },
  );

  it('a client that leaves with requests pipelined behind another cancels the upstream call, and the queued ones never start one: each logged 499 (Node never closes a queued response)', async () => {
    harness.emulator.enqueue({ ...hello('first, too late'), fault: { delayHeadersMs: 30_000 } });
    const before = harness.emulator.requests.length;
    const logged = harness.accessLog.length;
    const body = chatBody();
    const request =
      `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
      `authorization: Bearer ops-key-2\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const socket = connect(Number(new URL(harness.server.url).port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(request.repeat(10));
    // The upstream holds the first request; the nine queued behind it wait for their turn.
    while (harness.emulator.requests.length < before + 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(harness.emulator.requests.length - before).toBe(1);
    socket.destroy();
    await expect.poll(() => harness.accessLog.length - logged).toBe(10);
    expect(harness.accessLog.slice(logged).map((line) => line.status)).toEqual(Array(10).fill(499));
    expect(harness.emulator.requests.length - before).toBe(1);
    const metrics = await (await scrapeMetrics()).text();
    expect(metrics).toMatch(/in_flight_requests\{protocol="openai-chat"\} 0\b/);
  });

  it.each([
    ['/v1/chat/completions', 'served from Node'],
    ['/v1/chat/completions?trace=1', 'routed by the Hono app, read from Node’s request'],
  ])(
    'a client that leaves in the middle of its request body to %s (%s) is logged 499 cancelled, not a gateway error',
    async (path) => {
      const { port } = new URL(harness.server.url);
      const socket = connect(Number(port), '127.0.0.1');
      const before = harness.accessLog.length;
      await new Promise((resolve) => socket.once('connect', resolve));
      // Declares 1,000 bytes, sends 12, then goes.
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ops-key-2\r\nx-goog-api-key: ops-key-2\r\ncontent-length: 1000\r\n\r\n{"model": "u`,
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.destroy();
      await expect.poll(() => harness.accessLog.length).toBe(before + 1);
      expect(harness.accessLog.at(-1)).toMatchObject({ status: 499, errorClass: 'cancelled' });
      // The gateway is still serving.
      harness.emulator.enqueue(hello());
      expect((await post('/v1/chat/completions', chatBody())).status).toBe(200);
    },
  );

  it('served by the Hono app from a web Request (no Node request: another runtime), a body that fails because its client left is logged 499 cancelled', async () => {
    const before = harness.accessLog.length;
    const controller = new AbortController();
    // The runtime aborts the request's signal when the client goes, and its body fails.
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        stream.enqueue(new TextEncoder().encode('{"model": "u'));
      },
      pull(stream) {
        controller.abort();
        stream.error(new Error('connection reset'));
      },
    });
    await harness.app.request('/v1/chat/completions', {
      method: 'POST',
      body,
      duplex: 'half',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', authorization: 'Bearer ops-key-2' },
    } as RequestInit);
    await expect.poll(() => harness.accessLog.length).toBe(before + 1);
    expect(harness.accessLog.at(-1)).toMatchObject({ status: 499, errorClass: 'cancelled' });
  });

  it('x-request-id is echoed (or generated), x-switchyard-overhead-ms is on every non-streamed reply, the access log has no content', async () => {
    harness.emulator.enqueue(hello('secret prompt answer'));
    const response = await post('/v1/chat/completions', chatBody(), { 'x-request-id': 'trace-123' });
    expect(response.headers.get('x-request-id')).toBe('trace-123');
    expect(Number(response.headers.get('x-switchyard-overhead-ms'))).toBeGreaterThanOrEqual(0);
    const line = harness.accessLog.at(-1)!;
    expect(line).toMatchObject({
      requestId: 'trace-123',
      key: 'ops',
      model: 'up-chat',
      status: 200,
      stream: false,
    });
    expect(JSON.stringify(line)).not.toContain('secret prompt answer');
    const generated = await fetch(`${harness.server.url}/healthz`);
    expect(generated.headers.get('x-request-id')).toMatch(/^\w{26}$/);
  });
});

describe('protocol surfaces', () => {
  it('Responses store + previous_response_id: the stored transcript continues; an unknown id is a 404', async () => {
    const { openai } = createClients(harness.server.url, 'ops-key-2');
    harness.emulator.enqueue(hello('First answer.'));
    const first = await openai.responses.create({ model: 'up-chat', input: 'Remember: blue.', store: true });
    harness.emulator.enqueue(hello('Blue.'));
    const second = await openai.responses.create({
      model: 'up-chat',
      input: 'Which colour?',
      previous_response_id: first.id,
    });
    expect(second.output_text).toBe('Blue.');
    const upstream = JSON.stringify(harness.emulator.requests.at(-1)?.body);
    expect(upstream).toContain('Remember: blue.');
    expect(upstream).toContain('First answer.');
    await expect(
      openai.responses.create({ model: 'up-chat', input: 'x', previous_response_id: 'resp_unknown' }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('a stored response and a call’s stored artifacts belong to the key that made them', async () => {
    const ops = createClients(harness.server.url, 'ops-key-2').openai;
    const team = createClients(harness.server.url, 'team-key-1').openai;
    harness.emulator.enqueue(hello('Ops secret answer.'));
    const first = await ops.responses.create({ model: 'up-chat', input: 'Ops secret prompt.', store: true });
    await expect(
      team.responses.create({ model: 'up-chat', input: 'Go on.', previous_response_id: first.id }),
    ).rejects.toMatchObject({ status: 404 });
    // A Gemini thinking model's call signature, kept for a Chat client by call id: only its own key gets it back.
    harness.emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'private thought', signature: 'OPS-SIGNATURE' },
        { type: 'tool-call', id: 'fn_1', name: 'lookup', input: {}, signature: 'OPS-CALL-SIGNATURE' },
      ],
    });
    const tools = [
      { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } },
    ];
    const made = await ops.chat.completions.create({
      model: 'up-gemini',
      messages: [{ role: 'user', content: 'Look it up.' }],
      tools,
    });
    const call = made.choices[0]!.message.tool_calls![0]!;
    const replay = (client: typeof ops) => {
      harness.emulator.enqueue(hello('Done.'));
      return client.chat.completions.create({
        model: 'up-gemini',
        tools,
        messages: [
          { role: 'user', content: 'Look it up.' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: 'found' },
        ],
      });
    };
    await replay(ops);
    expect(JSON.stringify(harness.emulator.requests.at(-1)?.body)).toContain('OPS-CALL-SIGNATURE');
    const before = harness.emulator.requests.length;
    // Served (gemini-2.5-flash does not require the signature back), without the other key's artifacts.
    await replay(team);
    expect(harness.emulator.requests.length).toBe(before + 1);
    const seen = JSON.stringify(harness.emulator.requests.at(-1)?.body);
    expect(seen).not.toContain('OPS-CALL-SIGNATURE');
    expect(seen).not.toContain('private thought');
  });

  it('a key sees and counts only the models it may use; an unknown model is a 404', async () => {
    const team = createClients(harness.server.url, 'team-key-1');
    const listed = [];
    for await (const model of team.openai.models.list()) listed.push(model.id);
    expect(listed.sort()).toEqual(['up-chat', 'up-gemini', 'up-responses']);
    const count = (key: string, model: string) =>
      post(
        '/v1/messages/count_tokens',
        JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
        { authorization: `Bearer ${key}` },
      );
    expect((await count('team-key-1', 'up-anthropic')).status).toBe(403);
    expect((await count('team-key-1', 'up-chat')).status).toBe(200);
    expect((await count('ops-key-2', 'no-such-model-anywhere')).status).toBe(404);
    // A restricted key learns nothing of what is configured: unknown and forbidden names alike are 403.
    expect((await count('team-key-1', 'no-such-model-anywhere')).status).toBe(403);
    const long = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'x'.repeat(2000), messages: [{ role: 'user', content: 'Hi' }] }),
      { authorization: 'Bearer team-key-1' },
    );
    expect(long.status).toBe(403);
    expect((await long.text()).length).toBeLessThan(600);
  });

  it('one model in each SDK’s shape (models.retrieve / models.get); a model the key may not use is a 404', async () => {
    const ops = createClients(harness.server.url, 'ops-key-2');
    expect(await ops.openai.models.retrieve('up-chat')).toMatchObject({ id: 'up-chat', object: 'model' });
    expect(await ops.anthropic.models.retrieve('up-anthropic')).toMatchObject({
      id: 'up-anthropic',
      type: 'model',
    });
    expect(await ops.google.models.get({ model: 'up-gemini' })).toMatchObject({ name: 'models/up-gemini' });
    const team = createClients(harness.server.url, 'team-key-1');
    await expect(team.openai.models.retrieve('up-anthropic')).rejects.toMatchObject({ status: 404 });
    // A name the generation routes would serve though no listing shows it (a `provider:` prefix).
    expect(await ops.openai.models.retrieve('openai:gpt-made-up-9')).toMatchObject({
      id: 'openai:gpt-made-up-9',
    });
    await expect(team.openai.models.retrieve('openai:gpt-made-up-9')).rejects.toMatchObject({ status: 404 });
    const healthz = await fetch(`${harness.server.url}/healthz`);
    expect(healthz.status).toBe(200);
  });

  it('model listings in each protocol’s shape, and token counting', async () => {
    const clients = createClients(harness.server.url, 'ops-key-2');
    const openaiIds = [];
    for await (const model of clients.openai.models.list()) openaiIds.push(model.id);
    expect(openaiIds).toContain('up-gemini');
    const anthropicIds = [];
    for await (const model of clients.anthropic.models.list()) anthropicIds.push(model.id);
    expect(anthropicIds).toContain('up-anthropic');
    const geminiNames = [];
    for await (const model of await clients.google.models.list()) geminiNames.push(model.name);
    expect(geminiNames).toContain('models/up-chat');
    const counted = await clients.anthropic.messages.countTokens({
      model: 'up-chat',
      messages: [{ role: 'user', content: 'Count these words please.' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const geminiCount = await clients.google.models.countTokens({
      model: 'up-chat',
      contents: 'Count these words please.',
    });
    expect(geminiCount.totalTokens).toBeGreaterThan(0);
  });

  it('the native endpoint streams canonical events, finish last', async () => {
    harness.emulator.enqueue(hello('Native.'));
    const response = await post(
      '/switchyard/v1/stream',
      JSON.stringify({
        model: 'up-chat',
        transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      }),
    );
    const text = await response.text();
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('event: '))
      .map((line) => line.slice(7));
    expect(events[0]).toBe('message-start');
    expect(events.at(-1)).toBe('finish');
    expect(text).toContain('Native.');
  });

  it.each([
    ['null', 'null'],
    ['a number', '42'],
    ['a model that is not a string', '{"model":123}'],
    ['a transcript that is not an array', '{"model":"up-chat","transcript":"str"}'],
    [
      'an unknown model',
      '{"model":"no-such-model","transcript":[{"kind":"user","parts":[{"type":"text","text":"Hi"}]}]}',
    ],
  ])(
    'the native endpoint answers %s with an HTTP error before any event, not a 200 stream',
    async (_, body) => {
      const response = await post('/switchyard/v1/stream', body);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.headers.get('content-type')).toContain('application/json');
      const error = ((await response.json()) as { error: { message: string } }).error;
      expect(error.message.length).toBeGreaterThan(0);
    },
  );
});
