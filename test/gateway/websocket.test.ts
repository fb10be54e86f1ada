/**
 * The native WebSocket and `POST /switchyard/v1/stream` under the same rules as every protocol:
 * the key's models, limits and access log apply per request; a hostile frame closes one socket,
 * never the process; shutdown closes open sockets.
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { anthropicError, openaiError } from 'switchyard-ai/testing';
import { createGateway, createMemoryStore } from 'switchyard-ai/gateway';
import { createMemoryStateStore } from 'switchyard-ai/state';
import { chatStreamText, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;
const transcript = [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }];
const hello = { type: 'scripted' as const, content: [{ type: 'text' as const, text: 'Hello.' }] };

beforeAll(async () => {
  harness = await startGatewayHarness({
    body_limit_bytes: 4096,
    keys: [
      { name: 'team', key: digest('team-key'), models: ['up-chat'] },
      { name: 'tiny', key: digest('tiny-key'), limits: { requests_per_minute: 2 } },
      { name: 'open', key: digest('open-key') },
    ],
  });
});
beforeEach(() => {
  harness.emulator.clear();
  harness.accessLog.length = 0;
});
afterAll(async () => {
  await harness?.close();
});

interface Message {
  type: string;
  id: string | null;
  event?: { type: string };
  error?: { status: number; errorClass: string; message: string };
  refused?: { type: string | null; id: string };
}

async function openSocket(url: string, key: string) {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/switchyard/v1/ws`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const messages: Message[] = [];
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as Message);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const until = async (test: () => boolean) => {
    while (!test()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const last = async (id: string | null) => {
    await until(() => messages.some((message) => message.id === id && message.type !== 'event'));
    return messages.find((message) => message.id === id && message.type !== 'event')!;
  };
  return { socket, messages, closed, last };
}

/** `POST /switchyard/v1/stream` with `body`, under the gateway key `key`. */
const postNative = (body: unknown, key = 'team-key') =>
  fetch(`${harness.server.url}/switchyard/v1/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const healthy = async () => (await fetch(`${harness.server.url}/healthz`)).status;

it.each([
  ['null', 'null'],
  ['an array', '[1, 2]'],
  ['a number id', '{"type":"request","id":5}'],
  ['not JSON', '{"type":'],
])('a message that is %s gets an error frame and the gateway keeps serving', async (_, text) => {
  const { socket, last } = await openSocket(harness.server.url, 'team-key');
  socket.send(text);
  expect((await last(null)).error).toMatchObject({ status: 400, errorClass: 'invalid_request' });
  harness.emulator.enqueue(hello);
  socket.send(JSON.stringify({ type: 'request', id: 'after', request: { model: 'up-chat', transcript } }));
  expect((await last('after')).type).toBe('done');
  socket.close();
});

/** The access log's line for a socket closed on a frame it refused: as the HTTP body's refusal, with the close code. */
const closeLine = (closeCode: number, status: number) => ({
  protocol: 'switchyard',
  path: '/switchyard/v1/ws',
  key: 'team',
  status,
  errorClass: 'invalid_request',
  closeCode,
});

it('a message over the body limit closes that socket with 1009 (logged as the 413); the gateway keeps serving', async () => {
  const { socket, closed } = await openSocket(harness.server.url, 'team-key');
  socket.send(JSON.stringify({ type: 'request', id: 'big', padding: 'x'.repeat(10_000) }));
  expect(await closed).toBe(1009);
  expect(await healthy()).toBe(200);
  expect(harness.accessLog).toEqual([expect.objectContaining(closeLine(1009, 413))]);
});

it('a text frame that is not UTF-8 closes that socket with 1007 (logged as the 400); the gateway keeps serving', async () => {
  const { socket, closed } = await openSocket(harness.server.url, 'team-key');
  // `ws` sends a Buffer as a text frame when told it is not binary.
  socket.send(Buffer.from([0xff, 0xfe, 0xfd]), { binary: false });
  expect(await closed).toBe(1007);
  expect(await healthy()).toBe(200);
  expect(harness.accessLog).toEqual([expect.objectContaining(closeLine(1007, 400))]);
});

it('a second request under an id still in flight is refused without that id: the first goes on to done', async () => {
  const { socket, messages, last } = await openSocket(harness.server.url, 'team-key');
  harness.emulator.enqueue(hello);
  const request = JSON.stringify({ type: 'request', id: 'twice', request: { model: 'up-chat', transcript } });
  socket.send(request);
  socket.send(request);
  const refusal = await last(null);
  expect(refusal.error).toMatchObject({ status: 400, code: 'duplicate_id' });
  // The frame names the message it answers, though not under its id.
  expect(refusal.refused).toEqual({ type: 'request', id: 'twice' });
  expect((await last('twice')).type).toBe('done');
  expect(messages.filter((message) => message.id === 'twice' && message.type === 'error')).toHaveLength(0);
  socket.close();
});

it('a message of another type under an id still in flight is refused without that id', async () => {
  const { socket, messages, last } = await openSocket(harness.server.url, 'team-key');
  harness.emulator.enqueue(hello);
  socket.send(JSON.stringify({ type: 'request', id: 'live', request: { model: 'up-chat', transcript } }));
  socket.send(JSON.stringify({ type: 'cancle', id: 'live' }));
  const refusal = await last(null);
  expect(refusal.error).toMatchObject({ status: 400 });
  expect(refusal.refused).toEqual({ type: 'cancle', id: 'live' });
  expect((await last('live')).type).toBe('done');
  expect(messages.filter((message) => message.id === 'live' && message.type === 'error')).toHaveLength(0);
  socket.close();
});

it('a binary frame holding UTF-8 JSON is taken as a text one would be', async () => {
  const { socket, last } = await openSocket(harness.server.url, 'team-key');
  harness.emulator.enqueue(hello);
  socket.send(
    Buffer.from(JSON.stringify({ type: 'request', id: 'bin', request: { model: 'up-chat', transcript } })),
  );
  expect((await last('bin')).type).toBe('done');
  socket.close();
});

it('a cancel before the first content ends that request with one cancelled error (no done), logged as 499', async () => {
  const { socket, messages, last } = await openSocket(harness.server.url, 'team-key');
  harness.emulator.enqueue({ ...hello, fault: { stallAfterEvents: 0 } });
  const served = harness.nextServed();
  socket.send(JSON.stringify({ type: 'request', id: 'early', request: { model: 'up-chat', transcript } }));
  while (harness.emulator.requests.at(-1)?.protocol === undefined)
    await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.send(JSON.stringify({ type: 'cancel', id: 'early' }));
  expect((await last('early')).error).toMatchObject({ status: 499, errorClass: 'cancelled' });
  await served;
  await new Promise((resolve) => setTimeout(resolve, 100));
  const mine = messages.filter((message) => message.id === 'early');
  expect(mine.map((message) => message.type)).toEqual(['error']);
  expect(harness.accessLog.at(-1)).toMatchObject({ protocol: 'switchyard', status: 499 });
  socket.close();
});

it('a cancel mid-stream ends that request with a cancelled error (no done), logged as 499', async () => {
  const { socket, messages, last } = await openSocket(harness.server.url, 'team-key');
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'z'.repeat(200) }],
    fault: { stallAfterEvents: 4 },
  });
  const served = harness.nextServed();
  socket.send(JSON.stringify({ type: 'request', id: 'c', request: { model: 'up-chat', transcript } }));
  while (!messages.some((message) => message.id === 'c' && message.event?.type === 'text-delta'))
    await new Promise((resolve) => setTimeout(resolve, 5));
  socket.send(JSON.stringify({ type: 'cancel', id: 'c' }));
  expect((await last('c')).error).toMatchObject({ status: 499, errorClass: 'cancelled' });
  expect(await served).toMatchObject({ complete: false });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(messages.some((message) => message.id === 'c' && message.type === 'done')).toBe(false);
  expect(harness.accessLog.at(-1)).toMatchObject({ protocol: 'switchyard', status: 499 });
  socket.close();
});

it('a client that sends but never reads is cut off (no close frame could reach it) before its refusals pile up', async () => {
  const { socket, closed } = await openSocket(harness.server.url, 'team-key');
  const raw = (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  raw.pause();
  const refused = JSON.stringify({ type: 'nope', id: 'x'.repeat(200) });
  for (let index = 0; index < 100_000; index++) socket.send(refused);
  // Every message has left the client (the gateway has read them all) before it reads again.
  while (socket.bufferedAmount > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  raw.resume();
  expect(await closed).toBe(1006);
  expect(await healthy()).toBe(200);
});

it('a model outside the key’s list is refused per request on the socket (403), and each request is logged', async () => {
  const { socket, last } = await openSocket(harness.server.url, 'team-key');
  const upstreamBefore = harness.emulator.requests.length;
  socket.send(JSON.stringify({ type: 'request', id: 'no', request: { model: 'up-anthropic', transcript } }));
  expect((await last('no')).error).toMatchObject({ status: 403, errorClass: 'auth' });
  harness.emulator.enqueue(hello);
  socket.send(JSON.stringify({ type: 'request', id: 'yes', request: { model: 'up-chat', transcript } }));
  expect((await last('yes')).type).toBe('done');
  expect(harness.emulator.requests.length - upstreamBefore).toBe(1);
  expect(harness.accessLog.map((line) => [line.protocol, line.key, line.status])).toEqual([
    ['switchyard', 'team', 403],
    ['switchyard', 'team', 200],
  ]);
  socket.close();
});

it('POST /switchyard/v1/stream: the key’s models apply (403 in OpenAI’s shape), an invalid transcript is a 400 by path', async () => {
  const upstreamBefore = harness.emulator.requests.length;
  const forbidden = await postNative({ model: 'up-anthropic', transcript });
  expect(forbidden.status).toBe(403);
  expect(((await forbidden.json()) as { error: { message: string } }).error.message).toMatch(/may not use/);
  const invalid = await postNative({ model: 'up-chat', transcript: [{ kind: 'user', parts: 'nope' }] });
  expect(invalid.status).toBe(400);
  expect(((await invalid.json()) as { error: { param: string } }).error.param).toBe('transcript[0].parts');
  for (const [extra, field] of [
    [{ toolChoice: 'required' }, 'toolChoice'],
    [{ requestId: 'x'.repeat(200) }, 'requestId'],
    [{ requestId: 'two words' }, 'requestId'],
  ] as const) {
    const refused = await postNative({ model: 'up-chat', transcript, ...extra });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { param: string } }).error.param).toBe(field);
  }
  expect(harness.emulator.requests.length).toBe(upstreamBefore);
});

it('POST /switchyard/v1/stream: an upstream failure before content is an HTTP error, never a 200; provider options are refused', async () => {
  harness.emulator.enqueue(openaiError(400, 'the upstream disliked this'));
  const failed = await postNative({ model: 'up-chat', transcript });
  expect(failed.status).toBe(400);
  expect(await failed.text()).not.toMatch(/127\.0\.0\.1|http:\/\//);
  const options = await postNative({
    model: 'up-chat',
    transcript,
    providerOptions: { openai: { model: 'gpt-5-pro' } },
  });
  expect(options.status).toBe(400);
  expect(((await options.json()) as { error: { param: string } }).error.param).toBe('providerOptions');
  harness.emulator.enqueue(hello);
  const served = await postNative({ model: 'up-chat', transcript });
  expect(served.status).toBe(200);
  const text = await served.text();
  expect(text.indexOf('event: message-start')).toBeGreaterThanOrEqual(0);
  expect(text.indexOf('event: message-start')).toBeLessThan(text.indexOf('event: text-delta'));
  expect(text).toContain('event: finish');
});

/**
 * An Anthropic stream that starts (usage in its message_start), opens `block` when given (and closes
 * it again when `closed`), and is then overloaded before any content.
 */
function anthropicOpenThenOverloaded(model: string, block?: object, closed = false) {
  return [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
    },
    ...(block === undefined
      ? []
      : [
          {
            event: 'content_block_start',
            data: { type: 'content_block_start', index: 0, content_block: block },
          },
        ]),
    ...(closed ? [{ event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } }] : []),
    { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'busy' } } },
  ];
}

it.each([
  ['/switchyard/v1/stream', { type: 'text', text: '' }, false],
  ['/v1/chat/completions', { type: 'text', text: '' }, false],
  ['/switchyard/v1/stream', { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }, false],
  ['/v1/chat/completions', { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }, false],
  ['/switchyard/v1/stream', { type: 'text', text: '' }, true],
  ['/v1/chat/completions', { type: 'text', text: '' }, true],
])(
  '%s: an Anthropic upstream that opens a block (%j; closed again: %s) and then fails before any content is an HTTP error',
  async (path, block, closed) => {
    harness.emulator.enqueue({
      type: 'sse',
      events: [...anthropicOpenThenOverloaded('claude-sonnet-4-5', block, closed)],
    });
    const body =
      path === '/v1/chat/completions'
        ? { model: 'up-anthropic', stream: true, messages: [{ role: 'user', content: 'Hi' }] }
        : { model: 'up-anthropic', transcript };
    const response = await fetch(`${harness.server.url}${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer open-key', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(await response.text()).not.toMatch(/^data:|event:/m);
  },
);

it('a streamed Anthropic primary that opens a block and then is overloaded falls back: the client sees one clean stream', async () => {
  harness.emulator.enqueue({
    type: 'sse',
    events: [...anthropicOpenThenOverloaded('claude-haiku-4-5', { type: 'text', text: '' })],
  });
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'From the fallback.' }] });
  const before = harness.emulator.requests.length;
  const response = await fetch(`${harness.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer open-key', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up-fallback', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  expect(response.status).toBe(200);
  expect(chatStreamText(await response.text())).toBe('From the fallback.');
  expect(harness.emulator.requests.slice(before).map((request) => request.protocol)).toEqual([
    'anthropic-messages',
    'openai-chat',
  ]);
});

it('POST /switchyard/v1/stream: an upstream that reports usage and then fails before content is an HTTP error', async () => {
  harness.emulator.enqueue({
    type: 'sse',
    events: [...anthropicOpenThenOverloaded('claude-sonnet-4-5')],
  });
  const response = await postNative({ model: 'up-anthropic', transcript }, 'open-key');
  expect(response.status).toBeGreaterThanOrEqual(400);
  expect(await response.text()).not.toContain('event:');
});

it('the native finish event’s routing record names no upstream URL of a failed attempt', async () => {
  harness.emulator.enqueue(anthropicError(529, 'overloaded_error', 'busy'));
  harness.emulator.enqueue(hello);
  const served = await postNative({ model: 'up-fallback', transcript }, 'open-key');
  expect(served.status).toBe(200);
  const text = await served.text();
  expect(text).toContain('switchyard.routing');
  expect(text).not.toMatch(/http:\/\/127\.0\.0\.1/);
});

it('the key’s request limit counts socket requests as it counts HTTP ones', async () => {
  const { socket, last } = await openSocket(harness.server.url, 'tiny-key');
  const statuses: Array<number | string> = [];
  let refusal: unknown;
  for (const id of ['1', '2', '3']) {
    harness.emulator.enqueue(hello);
    socket.send(JSON.stringify({ type: 'request', id, request: { model: 'up-chat', transcript } }));
    const end = await last(id);
    statuses.push(end.type === 'done' ? 'done' : end.error!.status);
    if (end.type !== 'done') refusal = end.error;
  }
  expect(statuses).toEqual(['done', 'done', 429]);
  // What an HTTP reply's x-should-retry says: a limit per minute passes later.
  expect(refusal).toMatchObject({ retryable: true });
  socket.close();
});

it('shutdown refuses new socket requests and closes open sockets (1001) so the process can exit', async () => {
  const own = await startGatewayHarness();
  const { socket, closed } = await openSocket(own.server.url, 'any');
  const closing = own.server.close(200);
  const [code] = await Promise.all([closed, closing]);
  expect(code).toBe(1001);
  expect(socket.readyState).toBe(WebSocket.CLOSED);
  await own.close();
});

it('a request still running when the grace period ends gets one final 503 error frame before the 1001 close (no done)', async () => {
  const own = await startGatewayHarness();
  const { socket, messages, closed, last } = await openSocket(own.server.url, 'any');
  own.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'z'.repeat(200) }],
    fault: { stallAfterEvents: 4 },
  });
  socket.send(JSON.stringify({ type: 'request', id: 'long', request: { model: 'up-chat', transcript } }));
  while (!messages.some((message) => message.id === 'long' && message.event?.type === 'text-delta'))
    await new Promise((resolve) => setTimeout(resolve, 5));
  const [code] = await Promise.all([closed, own.server.close(100)]);
  expect(code).toBe(1001);
  expect((await last('long')).error).toMatchObject({ status: 503, errorClass: 'server_error' });
  const ends = messages.filter((message) => message.id === 'long' && message.type !== 'event');
  expect(ends.map((message) => message.type)).toEqual(['error']);
  // Logged as the 503 the client was told, not as a client's cancel (499).
  while (own.accessLog.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(own.accessLog.at(-1)).toMatchObject({
    protocol: 'switchyard',
    status: 503,
    errorClass: 'server_error',
  });
  await own.close();
});

it('without keys only local clients are served: another Host or a web page’s Origin is a 403, on HTTP and the socket', async () => {
  const own = await startGatewayHarness();
  const { port } = new URL(own.server.url);
  const chat = (headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] });
      const outgoing = request(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/chat/completions',
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
        },
        (incoming) => {
          incoming.resume();
          resolve(incoming.statusCode ?? 0);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  const before = own.emulator.requests.length;
  expect(await chat({ host: 'rebound.example:4000' })).toBe(403);
  expect(await chat({ origin: 'https://evil.example' })).toBe(403);
  expect(await chat({ origin: 'null' })).toBe(403);
  expect(own.emulator.requests.length).toBe(before);
  own.emulator.enqueue(hello);
  expect(await chat({ host: `localhost:${port}`, origin: 'http://localhost:5173' })).toBe(200);
  const status = await new Promise<number>((resolve) => {
    const socket = new WebSocket(`${own.server.url.replace('http', 'ws')}/switchyard/v1/ws`, {
      origin: 'https://evil.example',
    });
    socket.on('unexpected-response', (_, response) => resolve(response.statusCode ?? 0));
    socket.on('open', () => resolve(101));
    socket.on('error', () => undefined);
  });
  expect(status).toBe(403);
  const get = (path: string, headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const outgoing = request({ host: '127.0.0.1', port, path, headers }, (incoming) => {
        incoming.resume();
        resolve(incoming.statusCode ?? 0);
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  expect(await get('/metrics', { host: 'rebound.example' })).toBe(403);
  expect(await get('/healthz', { origin: 'https://evil.example' })).toBe(403);
  expect(await get('/healthz', { host: `0.0.0.0:${port}` })).toBe(200);
  expect(await get('/healthz', { host: `app.localhost:${port}` })).toBe(200);
  await own.close();
});

it('a state and a store passed in stay the caller’s: closing the gateway closes neither', async () => {
  const state = createMemoryStateStore();
  const store = createMemoryStore();
  let closed = 0;
  const counted = <Value extends { close?: () => Promise<void> }>(value: Value): Value => ({
    ...value,
    close: async () => {
      closed++;
    },
  });
  const gateway = createGateway({
    config: { builtins: false },
    state: counted(state),
    store: counted(store),
  });
  const server = await gateway.listen({ port: 0 });
  await server.close(0);
  expect(closed).toBe(0);
  await state.close();
  await store.close?.();
});

it('an app mounted on another server (no listen) does not judge host names it cannot know', async () => {
  const { app } = createGateway({ config: { builtins: false } });
  const response = await app.request('/healthz', { headers: { host: 'api.example.com' } });
  expect(response.status).toBe(200);
  // The origin needs no host names: a web page of another origin is refused there too.
  const page = await app.request('/healthz', { headers: { origin: 'https://evil.example' } });
  expect(page.status).toBe(403);
});

/** A raw HTTP/1.1 exchange over one connection: the status line and body of the reply. */
function rawExchange(url: string, text: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (/\r\n\r\n[\s\S]*\}\s*$/.test(reply)) socket.destroy();
    });
    socket.on('close', () => resolve(reply));
    socket.on('error', reject);
    setTimeout(() => socket.destroy(), 5000);
  });
}

it('a request asking for an upgrade the gateway does not speak (curl --http2: Upgrade: h2c) is answered as HTTP/1.1, on every route', async () => {
  const upgrade =
    'connection: Upgrade, HTTP2-Settings\r\nupgrade: h2c\r\nhttp2-settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n';
  const health = await rawExchange(
    harness.server.url,
    `GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n${upgrade}\r\n`,
  );
  expect(health).toMatch(/^HTTP\/1\.1 200 /);
  harness.emulator.enqueue(hello);
  const body = JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] });
  const chat = await rawExchange(
    harness.server.url,
    `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n${upgrade}authorization: Bearer team-key\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  expect(chat).toMatch(/^HTTP\/1\.1 200 /);
  expect(chat).toContain('"chat.completion"');
  // A WebSocket upgrade on another path is no WebSocket either: that route's own answer.
  const elsewhere = await rawExchange(
    harness.server.url,
    `GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
  );
  expect(elsewhere).toMatch(/^HTTP\/1\.1 200 /);
});

it('an HTTP/1.1 WebSocket upgrade without a Host header is refused with 400 (RFC 9112 §3.2)', async () => {
  const reply = await rawExchange(
    harness.server.url,
    'GET /switchyard/v1/ws HTTP/1.1\r\nauthorization: Bearer team-key\r\nconnection: Upgrade\r\nupgrade: websocket\r\n' +
      'sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  );
  expect(reply).toMatch(/^HTTP\/1\.1 400 /);
  expect(reply).not.toContain('101');
});
