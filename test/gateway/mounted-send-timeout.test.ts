/**
 * The send timeout on a mounted gateway (its Hono app served by another server, no `listen()`): a
 * client that never reads its reply is cut off after `send_timeout_seconds`, logged 499, and its
 * key's `max_in_flight` place is given back — streamed or whole, the app served by
 * @hono/node-server directly, under a parent Hono app, or by a host that hands the app no Node
 * response (a `fetch` of its own).
 */
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chatStreamText, type GatewayHarness, rawConnection, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

const digest = (secret: string) => `sha256:${createHash('sha256').update(secret).digest('hex')}`;

beforeAll(async () => {
  harness = await startGatewayHarness({
    send_timeout_seconds: 1,
    keys: [
      { name: 'single', key: digest('single-key'), max_in_flight: 1 },
      { name: 'many', key: digest('many-key') },
    ],
  });
});
afterAll(async () => {
  await harness?.close();
});

type Host = (app: GatewayHarness['app']) => ReturnType<typeof serve>;

const hosts: Array<[string, Host]> = [
  ['served by @hono/node-server', (app) => serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })],
  [
    'under a parent Hono app',
    (app) => {
      const parent = new Hono();
      parent.route('/', app);
      return serve({ fetch: parent.fetch, port: 0, hostname: '127.0.0.1' });
    },
  ],
  [
    'behind a fetch that hands it no Node response',
    (app) => serve({ fetch: (request) => app.fetch(request), port: 0, hostname: '127.0.0.1' }),
  ],
];

async function mounted(host: Host): Promise<{ url: string; close: () => Promise<void> }> {
  const server = host(harness.app);
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const request = (stream: boolean) =>
  JSON.stringify({ model: 'up-chat', stream, messages: [{ role: 'user', content: 'Hi' }] });

async function chat(url: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    body: request(false),
    headers: { 'content-type': 'application/json', authorization: 'Bearer single-key' },
  });
  await response.arrayBuffer();
  return response.status;
}

/** Sends a non-streamed or streamed Chat call on a raw socket that never reads. */
function unreadCall(url: string, stream: boolean) {
  const body = request(stream);
  const connection = rawConnection(url);
  connection.socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer single-key\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  connection.socket.pause();
  return connection;
}

/** 8 MB of text: more than the loopback socket's buffers take from a client that reads nothing. */
const largeReply = () =>
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'y'.repeat(8_000_000) }],
    chunkSize: 65_536,
  });

describe.each(hosts)('a mounted gateway (%s)', (name, host) => {
  // Handed to a host that gives the app no Node response, a whole reply is the host's once handed
  // over: nothing tells the gateway more.
  const rows: Array<[string, boolean]> = name.includes('no Node response')
    ? [['streamed', true]]
    : [
        ['streamed', true],
        ['whole', false],
      ];
  it.each(rows)(
    'a %s reply its client never reads: cut off after send_timeout_seconds, logged 499, its key’s place given back',
    async (_kind, stream) => {
      // @hono/node-server reports an errored body (the host without Node's response) on the console.
      const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
      const { url, close } = await mounted(host);
      largeReply();
      const logged = harness.accessLog.length;
      const { socket, received } = unreadCall(url, stream);
      try {
        // The reply is begun (its first bytes wait in the paused socket's buffer), not read.
        await expect.poll(() => socket.readableLength, { timeout: 15_000 }).toBeGreaterThan(0);
        await expect
          .poll(() => harness.accessLog.slice(logged).map((line) => line.status), { timeout: 15_000 })
          .toEqual([499]);
        expect(harness.accessLog.at(-1)).toMatchObject({ errorClass: 'cancelled', key: 'single' });
        expect(received()).toBe('');
        // Its place given back: the key's next call is served.
        harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Next.' }] });
        expect(await chat(url)).toBe(200);
      } finally {
        socket.destroy();
        await close();
        quiet.mockRestore();
      }
    },
    45_000,
  );
});

it('a stream whose upstream is quiet longer than send_timeout_seconds, its client reading, is not cut (every host, at once)', async () => {
  const servers = await Promise.all(hosts.map(([, host]) => mounted(host)));
  const words = 'slow';
  // 1.3 s between events: each pull waits on the upstream longer than the 1 s send timeout.
  for (const _server of servers)
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: words }],
      chunkSize: 5,
      fault: { dripMs: 1300 },
    });
  const logged = harness.accessLog.length;
  try {
    const texts = await Promise.all(
      servers.map(async ({ url }) => {
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          body: request(true),
          headers: { 'content-type': 'application/json', authorization: 'Bearer many-key' },
        });
        return response.text();
      }),
    );
    for (const text of texts) {
      expect(chatStreamText(text)).toBe(words);
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    }
    await expect
      .poll(() => harness.accessLog.slice(logged).map((line) => line.status))
      .toEqual([200, 200, 200]);
  } finally {
    await Promise.all(servers.map(({ close }) => close()));
  }
}, 45_000);

it('a whole reply handed to a host that gives the app no Node response is the host’s: logged when handed over, its place given back at once', async () => {
  const { url, close } = await mounted(hosts[2]![1]);
  largeReply();
  const logged = harness.accessLog.length;
  const { socket } = unreadCall(url, false);
  try {
    await expect.poll(() => socket.readableLength, { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(() => harness.accessLog.slice(logged).map((line) => line.status)).toEqual([200]);
    harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Next.' }] });
    expect(await chat(url)).toBe(200);
  } finally {
    socket.destroy();
    await close();
  }
}, 20_000);
