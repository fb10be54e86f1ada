/**
 * The gateway's keys: each protocol's way of sending one, a key's models and fallbacks, refusals
 * before the body arrives and the connection after them, Expect: 100-continue, loopback-only
 * without keys.
 */
import { describe, expect, it, vi } from 'vitest';
import { createGateway } from 'switchyard-ai/gateway';
import { anthropicError } from 'switchyard-ai/testing';
import { createClients } from './harness.ts';
import { chatBody, hello, useServerHarness } from './server-harness.ts';

const { harness, post, rawConnection } = useServerHarness();

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
