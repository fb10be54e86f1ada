/**
 * A key holds at most `max_websockets` WebSockets open at once on an instance: an upgrade past it
 * is a 429 in the protocol's error shape before the socket opens (logged and counted as a refused
 * request), and every way a socket ends — the client's close, a reset, the body timeout, a frame
 * the gateway refuses — gives its place back. Another key's sockets are not counted against it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createGateway } from 'switchyard-ai/gateway';
import { defaultMaxWebsockets, loadKeys } from '../../src/gateway/keys.ts';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;

beforeAll(async () => {
  harness = await startGatewayHarness({
    body_limit_bytes: 4096,
    body_timeout_seconds: 0.3,
    keys: [
      { name: 'pair', key: digest('pair-key'), max_websockets: 2 },
      { name: 'other', key: digest('other-key'), max_websockets: 2 },
      { name: 'single', key: digest('single-key'), max_websockets: 1 },
      { name: 'ops', key: digest('ops-key'), admin: true },
    ],
  });
});
afterAll(async () => {
  await harness?.close();
});

const socketUrl = () => `${harness.server.url.replace('http', 'ws')}/switchyard/v1/ws`;

/** The upgrade's outcome: the open socket, or the HTTP answer that refused it. */
type Opened =
  | { socket: WebSocket; closed: Promise<number> }
  | { status: number; headers: IncomingMessage['headers']; body: string };

async function open(key: string): Promise<Opened> {
  const socket = new WebSocket(socketUrl(), { headers: { authorization: `Bearer ${key}` } });
  return new Promise((resolve, reject) => {
    const closed = new Promise<number>((done) => socket.on('close', (code) => done(code)));
    socket.once('open', () => resolve({ socket, closed }));
    socket.once('unexpected-response', (_, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    socket.once('error', reject);
  });
}

async function opened(key: string): Promise<WebSocket> {
  const result = await open(key);
  if ('status' in result) throw new Error(`refused with ${result.status}: ${result.body}`);
  return result.socket;
}

/** Whether an upgrade with `key` opens now (the socket is closed again at once). */
async function opens(key: string): Promise<boolean> {
  const result = await open(key);
  if ('status' in result) return false;
  result.socket.close();
  await result.closed;
  return true;
}

/** A socket upgraded by hand with `key`, once its handshake is answered (and whether it opened). */
async function rawSocket(key: string): Promise<{ socket: Socket; upgraded: boolean; closed: Promise<void> }> {
  const { port } = new URL(harness.server.url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `GET /switchyard/v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Authorization: Bearer ${key}\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let received = '';
  await new Promise<void>((resolve) =>
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) resolve();
    }),
  );
  return { socket, upgraded: received.startsWith('HTTP/1.1 101 '), closed };
}

/** A client text frame's header (masked with a zero key: the payload goes as it is). */
function frameHeader(length: number): Buffer {
  if (length < 126) return Buffer.from([0x81, 0x80 | length, 0, 0, 0, 0]);
  const header = Buffer.from([0x81, 0x80 | 126, 0, 0, 0, 0, 0, 0]);
  header.writeUInt16BE(length, 2);
  return header;
}

it('a key holding max_websockets open sockets is refused the next with a 429 in the protocol’s error shape; a close frees its place; another key is unaffected', async () => {
  const first = await opened('pair-key');
  const second = await opened('pair-key');
  const logged = harness.accessLog.length;
  const refused = await open('pair-key');
  expect(refused).toMatchObject({ status: 429, headers: { 'retry-after': '1' } });
  const { body } = refused as { body: string };
  expect(JSON.parse(body)).toMatchObject({
    error: { message: expect.stringMatching(/this key has 2 WebSockets open/) },
  });
  // Logged and counted as a refused request is, under its key.
  expect(harness.accessLog.slice(logged)).toEqual([
    expect.objectContaining({
      protocol: 'switchyard',
      path: '/switchyard/v1/ws',
      key: 'pair',
      status: 429,
      errorClass: 'rate_limit',
    }),
  ]);
  // Another key's sockets are its own: both of its places are free.
  const others = [await opened('other-key'), await opened('other-key')];
  // The two open ones still serve.
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hello.' }] });
  const done = new Promise((resolve) =>
    second.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string };
      if (message.type !== 'event') resolve(message.type);
    }),
  );
  const transcript = [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }];
  second.send(JSON.stringify({ type: 'request', id: 'r1', request: { model: 'up-chat', transcript } }));
  expect(await done).toBe('done');
  // One closes: its place is free again, and only one.
  first.close();
  await expect.poll(() => opens('pair-key'), { timeout: 3000 }).toBe(true);
  const third = await opened('pair-key');
  expect(await open('pair-key')).toMatchObject({ status: 429 });
  for (const socket of [second, third, ...others]) socket.close();
});

it.each([
  ['the client closes it', (socket: Socket) => socket.end(Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]))],
  ['the client resets it', (socket: Socket) => socket.resetAndDestroy()],
  [
    'a message goes quiet past body_timeout_seconds (1008)',
    (socket: Socket) => {
      socket.write(frameHeader(1000));
      socket.write(Buffer.alloc(10, 0x61));
    },
  ],
  [
    'a frame over the body limit (1009)',
    (socket: Socket) => {
      socket.write(frameHeader(8000));
    },
  ],
  [
    'a frame that is not UTF-8 (1007)',
    (socket: Socket) => {
      socket.write(Buffer.concat([frameHeader(2), Buffer.from([0xc3, 0x28])]));
    },
  ],
])('a socket gives its place back when %s', async (_, end) => {
  const { socket, upgraded, closed } = await rawSocket('single-key');
  expect(upgraded).toBe(true);
  expect(await open('single-key')).toMatchObject({ status: 429 });
  end(socket);
  await closed;
  await expect.poll(() => opens('single-key'), { timeout: 3000 }).toBe(true);
});

it('max_websockets defaults to 256 per key and must be a positive whole number', () => {
  const [key] = loadKeys([{ name: 'plain', key: digest('plain-key') }], {});
  expect(key!.maxWebsockets).toBe(defaultMaxWebsockets);
  expect(defaultMaxWebsockets).toBe(256);
  for (const value of [0, 1.5, -1])
    expect(() =>
      createGateway({
        logger: { warn: () => {} },
        config: {
          builtins: false,
          gateway: { keys: [{ name: 'bad', key: digest('k'), max_websockets: value }] },
        },
      }),
    ).toThrow(/gateway\.keys\.0\.max_websockets/);
});

it('a refused upgrade (a wrong key: 401) is logged and counted as a refused request; open WebSockets are a gauge in /metrics', async () => {
  const logged = harness.accessLog.length;
  const refused = await open('wrong-key');
  expect(refused).toMatchObject({ status: 401 });
  expect(harness.accessLog.slice(logged)).toEqual([
    expect.objectContaining({ protocol: 'switchyard', path: '/switchyard/v1/ws', key: null, status: 401 }),
  ]);
  const gauge = async () => {
    const text = await (
      await fetch(`${harness.server.url}/metrics`, { headers: { authorization: 'Bearer ops-key' } })
    ).text();
    return /^switchyard_gateway_open_websockets (\d+)$/m.exec(text)?.[1];
  };
  expect(await gauge()).toBe('0');
  const socket = await opened('single-key');
  expect(await gauge()).toBe('1');
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.close();
  await closed;
  await expect.poll(gauge).toBe('0');
});

it('max_websockets counts a key’s sockets of both protocols: a Responses WebSocket past it is a 429 in OpenAI’s shape, logged under openai-responses', async () => {
  const native = await opened('single-key');
  const responses = new WebSocket(`${harness.server.url.replace('http', 'ws')}/v1/responses`, {
    headers: { authorization: 'Bearer single-key' },
  });
  const logged = harness.accessLog.length;
  const refused = await new Promise<{ status: number; body: string }>((resolve) =>
    responses.once('unexpected-response', (_, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    }),
  );
  responses.on('error', () => {});
  expect(refused.status).toBe(429);
  expect(JSON.parse(refused.body)).toMatchObject({
    error: { type: 'requests', message: expect.stringMatching(/this key has 1 WebSockets open/) },
  });
  expect(harness.accessLog.slice(logged)).toEqual([
    expect.objectContaining({
      protocol: 'openai-responses',
      path: '/v1/responses',
      key: 'single',
      status: 429,
    }),
  ]);
  native.close();
});
