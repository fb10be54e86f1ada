/**
 * A WebSocket message still arriving is held as an HTTP body being read is: its bytes count against
 * `max_request_bytes_in_flight` (past it the socket closes with 1013, and the bound is free again)
 * and one that sends nothing for `body_timeout_seconds`, or is still arriving `body_deadline_seconds`
 * after its first byte, closes its socket (1008). Either close is an
 * access log line and a request in the metrics, as the HTTP body's 503 / 408 is, with its close code.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MessageProgress } from '../../src/gateway/websocket-hold.ts';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const transcript = (text: string) => [{ kind: 'user', parts: [{ type: 'text', text }] }];
const hello = { type: 'scripted' as const, content: [{ type: 'text' as const, text: 'Hello.' }] };
const mib = 1024 * 1024;

beforeAll(async () => {
  harness = await startGatewayHarness({
    body_limit_bytes: 4 * mib,
    max_request_bytes_in_flight: 3 * mib,
    body_timeout_seconds: 0.5,
    body_deadline_seconds: 1.5,
  });
});
afterAll(async () => {
  await harness?.close();
});

/** A client frame's header (masked with a zero key: the payload goes as it is). */
function frameHeader(opcode: number, length: number, final = true): Buffer {
  const first = (final ? 0x80 : 0) | opcode;
  if (length < 126) return Buffer.from([first, 0x80 | length, 0, 0, 0, 0]);
  if (length < 65536) {
    const header = Buffer.from([first, 0x80 | 126, 0, 0, 0, 0, 0, 0]);
    header.writeUInt16BE(length, 2);
    return header;
  }
  const header = Buffer.alloc(14);
  header[0] = first;
  header[1] = 0x80 | 127;
  header.writeBigUInt64BE(BigInt(length), 2);
  return header;
}

const frame = (opcode: number, payload: Buffer, final = true) =>
  Buffer.concat([frameHeader(opcode, payload.length, final), payload]);

/** A socket upgraded by hand: the frames it can write, and the close frame the gateway sends (code and reason). */
async function rawSocket(): Promise<{ socket: Socket; closed: Promise<{ code: number; reason: string }> }> {
  const { port } = new URL(harness.server.url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `GET /switchyard/v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let received = Buffer.alloc(0);
  const upgraded = new Promise<void>((resolve) =>
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.includes('\r\n\r\n')) resolve();
    }),
  );
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', () => {
      const at = received.indexOf(Buffer.from([0x88]), received.indexOf('\r\n\r\n') + 4);
      if (at < 0) return resolve({ code: 0, reason: '' });
      const length = received[at + 1]! & 0x7f;
      resolve({
        code: received.readUInt16BE(at + 2),
        reason: received.subarray(at + 4, at + 2 + length).toString(),
      });
    }),
  );
  await upgraded;
  return { socket, closed };
}

const request = (id: string, text: string) =>
  JSON.stringify({ type: 'request', id, request: { model: 'up-chat', transcript: transcript(text) } });

/** Writes `bytes` a 64 KiB piece at a time, waiting for each to drain. */
async function writeAll(socket: Socket, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length && !socket.destroyed; at += 65536)
    if (!socket.write(bytes.subarray(at, at + 65536)))
      await new Promise((resolve) => socket.once('drain', resolve));
}

/**
 * The status of a POST declaring a `bytes`-long body whose body is never sent: a 503 when the bound
 * has no room for that length (refused before a byte of it is read), else 0 (the request is let go,
 * having held nothing). Unlike a body sent, it never races the message for the bound's room.
 */
async function declaredLengthStatus(bytes: number): Promise<number> {
  const { port } = new URL(harness.server.url);
  return new Promise((resolve) => {
    const post = httpRequest({
      host: '127.0.0.1',
      port: Number(port),
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', 'content-length': bytes },
    });
    post.on('error', () => resolve(0));
    const wait = setTimeout(() => {
      post.destroy();
      resolve(0);
    }, 200);
    post.on('response', (response) => {
      clearTimeout(wait);
      response.resume();
      post.destroy();
      resolve(response.statusCode ?? 0);
    });
    post.flushHeaders();
  });
}

const postChat = (text: string) =>
  harness.post('/v1/chat/completions', { model: 'up-chat', messages: [{ role: 'user', content: text }] });

/** The metrics' `name{labels} value` for the socket's protocol, 0 when absent. */
async function counted(series: string): Promise<number> {
  const text = await (await fetch(`${harness.server.url}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
const closedRequests = (status: number) =>
  `switchyard_gateway_requests_total{protocol="switchyard",model="unknown",status="${status}",route="generate"}`;
const closedErrors = (errorClass: string) =>
  `switchyard_gateway_errors_total{protocol="switchyard",class="${errorClass}"}`;

/** The access log's lines for sockets closed on a message still arriving. */
const closeLines = () => harness.accessLog.filter((line) => line.closeCode !== undefined);

/** The socket's frames until `done` (or an error) for `id`. */
async function served(socket: WebSocket, id: string): Promise<string> {
  return new Promise((resolve) =>
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id: string; type: string };
      if (message.id === id && message.type !== 'event') resolve(message.type);
    }),
  );
}

it('bytes of a message still arriving count against the bound an HTTP body does: past it the socket closes with 1013 (logged and counted as the 503) and the bound is free again', async () => {
  const requestsBefore = await counted(closedRequests(503));
  const errorsBefore = await counted(closedErrors('server_error'));
  const logged = closeLines().length;
  const { socket, closed } = await rawSocket();
  // A message announcing 3.5 MiB (within the 4 MiB body limit), all but its end sent: 2 MiB held.
  const size = 3.5 * mib;
  socket.write(frameHeader(1, size));
  await writeAll(socket, Buffer.alloc(2 * mib, 0x61));
  // A large HTTP body finds no room: 2 MiB + 1.5 MiB is past the 3 MiB bound (once the gateway has
  // read the 2 MiB: asked by a declared length, which holds nothing — a body sent while the
  // message's bytes are still being read could take the room first and have the socket refused).
  await expect.poll(() => declaredLengthStatus(1.5 * mib), { timeout: 5000 }).toBe(503);
  // More of the message than the bound can take: the socket is closed, its reason the 503's.
  await writeAll(socket, Buffer.alloc(1.25 * mib, 0x61));
  const { code, reason } = await closed;
  expect(code).toBe(1013);
  expect(reason).toMatch(/large request bodies/);
  // In the access log as the HTTP body's 503 is, its close code beside it; and in the metrics.
  expect(closeLines().slice(logged)).toEqual([
    expect.objectContaining({
      protocol: 'switchyard',
      path: '/switchyard/v1/ws',
      key: null,
      model: 'unknown',
      status: 503,
      errorClass: 'server_error',
      closeCode: 1013,
      requestId: expect.any(String),
    }),
  ]);
  expect(await counted(closedRequests(503))).toBe(requestsBefore + 1);
  expect(await counted(closedErrors('server_error'))).toBe(errorsBefore + 1);
  // What it held is given back: the body refused while it was held is served.
  harness.emulator.enqueue(hello);
  expect((await postChat('y'.repeat(1.5 * mib))).status).toBe(200);
});

it('a message that sends nothing for body_timeout_seconds closes its socket with 1008 (logged and counted as the 408); one between messages stays open', async () => {
  const requestsBefore = await counted(closedRequests(408));
  const errorsBefore = await counted(closedErrors('network'));
  const logged = closeLines().length;
  const stalled = await rawSocket();
  const idle = new WebSocket(`${harness.server.url.replace('http', 'ws')}/switchyard/v1/ws`);
  await new Promise((resolve) => idle.once('open', resolve));
  stalled.socket.write(frameHeader(1, 200_000));
  stalled.socket.write(Buffer.alloc(100_000, 0x61));
  const started = performance.now();
  const { code, reason } = await stalled.closed;
  expect(code).toBe(1008);
  expect(reason).toMatch(/sent nothing for 0.5 s/);
  expect(performance.now() - started).toBeGreaterThanOrEqual(400);
  expect(closeLines().slice(logged)).toEqual([
    expect.objectContaining({
      path: '/switchyard/v1/ws',
      status: 408,
      errorClass: 'network',
      closeCode: 1008,
    }),
  ]);
  expect(await counted(closedRequests(408))).toBe(requestsBefore + 1);
  expect(await counted(closedErrors('network'))).toBe(errorsBefore + 1);
  // The socket that sent no partial message is not cut: it is served after the body timeout.
  harness.emulator.enqueue(hello);
  const done = served(idle, 'after');
  idle.send(request('after', 'Hi'));
  expect(await done).toBe('done');
  idle.close();
});

it('a message still arriving body_deadline_seconds after its first byte closes its socket with 1008, however steadily it comes', async () => {
  const logged = closeLines().length;
  const trickling = await rawSocket();
  trickling.socket.write(frameHeader(1, 200_000));
  trickling.socket.write(Buffer.alloc(100_000, 0x61));
  const started = performance.now();
  // A byte every 100 ms: each pause well under the 0.5 s body timeout.
  const drip = setInterval(() => trickling.socket.write(Buffer.from('a')), 100);
  const { code, reason } = await trickling.closed;
  clearInterval(drip);
  expect(code).toBe(1008);
  expect(reason).toMatch(/did not arrive whole within 1.5 s/);
  expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
  expect(closeLines().slice(logged)).toEqual([
    expect.objectContaining({ status: 408, errorClass: 'network', closeCode: 1008 }),
  ]);
});

it('a 1 MiB message is served, whole or in fragments with a ping between them', async () => {
  const socket = new WebSocket(`${harness.server.url.replace('http', 'ws')}/switchyard/v1/ws`);
  await new Promise((resolve) => socket.once('open', resolve));
  harness.emulator.enqueue(hello);
  const whole = served(socket, 'whole');
  socket.send(request('whole', 'x'.repeat(mib)));
  expect(await whole).toBe('done');
  socket.close();
  // By hand: three fragments, a ping between the first two (sent a byte at a time: frame edges anywhere).
  const raw = await rawSocket();
  const text = Buffer.from(request('fragments', 'y'.repeat(mib)));
  const third = Math.floor(text.length / 3);
  const bytes = Buffer.concat([
    frame(1, text.subarray(0, third), false),
    frame(9, Buffer.from('ping')),
    frame(0, text.subarray(third, 2 * third), false),
    frame(0, text.subarray(2 * third), true),
  ]);
  harness.emulator.enqueue(hello);
  let replies = '';
  raw.socket.on('data', (chunk: Buffer) => (replies += chunk.toString('latin1')));
  await writeAll(raw.socket, bytes);
  await expect.poll(() => replies).toMatch(/"type":"done","id":"fragments"/);
  raw.socket.destroy();
});

it('frame edges are followed wherever the chunks split them', () => {
  const message = Buffer.concat([
    frame(1, Buffer.alloc(70_000, 0x61), false),
    frame(9, Buffer.alloc(3)),
    frame(0, Buffer.alloc(300, 0x62), true),
  ]);
  const pong = frame(10, Buffer.alloc(0));
  const next = frameHeader(2, 10);
  const all = Buffer.concat([message, pong, next, Buffer.alloc(4)]);
  // Where the stream is between messages: after the message, and after the pong that follows it.
  const rests = [0, message.length, message.length + pong.length];
  for (const step of [1, 7, 125, 4096, all.length]) {
    const progress = new MessageProgress();
    const wrong: number[] = [];
    for (let at = 0; at < all.length; at += step) {
      const end = Math.min(at + step, all.length);
      progress.feed(all.subarray(at, end));
      if (progress.pending !== end - Math.max(...rests.filter((rest) => rest <= end))) wrong.push(end);
    }
    expect(wrong).toEqual([]);
    expect(progress.pending).toBe(next.length + 4);
  }
});
