/**
 * The native WebSocket: a request ends once, however it ends — here a cancel that comes while its
 * reply waits for the socket's send buffer (a client that stopped reading). Over a real socket.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;
const transcript = [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  harness = await startGatewayHarness({
    keys: [{ name: 'one-at-a-time', key: digest('single-key'), max_in_flight: 1 }],
  });
});
afterAll(async () => {
  await harness?.close();
});

interface Message {
  type: string;
  id: string | null;
  error?: { status: number; errorClass: string };
}

it('a request cancelled while its reply waits for a full send buffer is ended: logged 499, its key’s slot given back', async () => {
  const socket = new WebSocket(`${harness.server.url.replace('http', 'ws')}/switchyard/v1/ws`, {
    headers: { authorization: 'Bearer single-key' },
  });
  const mine: Message[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Message;
    if (message.id === 'waiting') mine.push(message);
  });
  await new Promise((resolve) => socket.once('open', resolve));
  // The client stops reading, and its refused messages fill the gateway's send buffer (about
  // 10 MB of error frames: past the 1 MiB at which replies wait, under the 16 MiB cut-off).
  const raw = (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  raw.pause();
  const refused = JSON.stringify({ type: 'nonsense', id: 'x'.repeat(256) });
  for (let index = 0; index < 25_000; index++) socket.send(refused);
  while (socket.bufferedAmount > 0) await sleep(20);
  await sleep(300);
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hello.' }] });
  const served = harness.nextServed();
  const logged = harness.accessLog.length;
  socket.send(JSON.stringify({ type: 'request', id: 'waiting', request: { model: 'up-chat', transcript } }));
  // The upstream has answered whole: the reply waits for the send buffer only.
  await served;
  await sleep(100);
  socket.send(JSON.stringify({ type: 'cancel', id: 'waiting' }));
  raw.resume();
  for (let waited = 0; waited < 100 && !mine.some((message) => message.type === 'error'); waited++)
    await sleep(50);
  expect(mine).toEqual([
    expect.objectContaining({ type: 'error', error: expect.objectContaining({ status: 499 }) }),
  ]);
  for (let waited = 0; waited < 40 && harness.accessLog.length === logged; waited++) await sleep(25);
  expect(harness.accessLog.slice(logged)).toEqual([
    expect.objectContaining({ path: '/switchyard/v1/ws', key: 'one-at-a-time', status: 499 }),
  ]);
  socket.close();
  // The key's one slot is free again: its next request is served, not refused with a 429.
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Again.' }] });
  const next = await fetch(`${harness.server.url}/switchyard/v1/stream`, {
    method: 'POST',
    headers: { authorization: 'Bearer single-key', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up-chat', transcript }),
  });
  expect(next.status).toBe(200);
  await next.text();
}, 30_000);
