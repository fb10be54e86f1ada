/**
 * A client that pipelines thousands of requests behind a slow one on one connection: the gateway
 * stops reading the connection once 32 requests are queued behind the one being answered (Node
 * parses at most the rest of the read it has), so it never holds a request and a response object
 * for every one sent; and when that client leaves, its queued generations are logged 499 without
 * being served — not one key-limit 429 each. Parsed requests are counted by Node's own
 * `http.server.request.start` channel, not timed.
 */
import { createHash } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, rawConnection, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

const digest = (secret: string) => `sha256:${createHash('sha256').update(secret).digest('hex')}`;

beforeAll(async () => {
  harness = await startGatewayHarness({
    keys: [{ name: 'narrow', key: digest('narrow-key'), max_in_flight: 2 }],
  });
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

/** A Chat generation's bytes under the `narrow` key. */
function generation(): string {
  const body = JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] });
  return (
    `POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer narrow-key\r\n` +
    `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Counts the requests Node's server parses on the connection whose client port is `port()`. */
function countParsed(port: () => number | undefined) {
  let parsed = 0;
  const onStart = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    if (socket.remotePort === port()) parsed++;
  };
  subscribe('http.server.request.start', onStart);
  return { parsed: () => parsed, stop: () => unsubscribe('http.server.request.start', onStart) };
}

/** The slow request: its upstream answers after 30 s (the client leaves first). */
const slowUpstream = () =>
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'too late' }],
    fault: { delayHeadersMs: 30_000 },
  });

describe('a connection flooded with pipelined requests', () => {
  it('6,000 tiny requests pipelined behind a slow generation: at most 32 queued plus one read’s worth are parsed, the rest left unread on the connection', async () => {
    slowUpstream();
    const sent = harness.emulator.requests.length;
    const { socket, closed } = rawConnection(harness.server.url);
    const counter = countParsed(() => socket.localPort);
    try {
      await new Promise((resolve) => socket.once('connect', resolve));
      const healthz = 'GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n';
      socket.write(generation() + healthz.repeat(6000));
      await expect.poll(() => harness.emulator.requests.length - sent).toBe(1);
      // Node reads in 64 KiB: what one read holds past the 32th queued is parsed with it, no more.
      const bound = 1 + 32 + Math.ceil((64 * 1024) / healthz.length);
      await expect.poll(() => counter.parsed()).toBeGreaterThan(32);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(counter.parsed()).toBeLessThanOrEqual(bound);
      socket.destroy();
      await closed;
      // The connection's queued requests went with it; the gateway answers the next client.
      expect((await fetch(`${harness.server.url}/healthz`)).status).toBe(200);
      expect(harness.emulator.requests.length - sent).toBe(1);
    } finally {
      counter.stop();
      socket.destroy();
    }
  });

  it('queued generations whose client leaves before their turn are each logged 499 cancelled under their key, never the 429 of its max_in_flight, and none reaches the upstream', async () => {
    slowUpstream();
    const sent = harness.emulator.requests.length;
    const logged = harness.accessLog.length;
    const { socket, closed } = rawConnection(harness.server.url);
    const counter = countParsed(() => socket.localPort);
    try {
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(generation().repeat(21));
      await expect.poll(() => harness.emulator.requests.length - sent).toBe(1);
      await expect.poll(() => counter.parsed()).toBe(21);
      socket.destroy();
      await closed;
      await expect.poll(() => harness.accessLog.length - logged).toBe(21);
      const lines = harness.accessLog.slice(logged);
      expect(lines.map((line) => [line.status, line.errorClass, line.key])).toEqual(
        Array.from({ length: 21 }, () => [499, 'cancelled', 'narrow']),
      );
      expect(harness.emulator.requests.length - sent).toBe(1);
    } finally {
      counter.stop();
      socket.destroy();
    }
  });
});
