/**
 * A whole (non-streamed) reply its client never reads, on the gateway's own server: it is cut off
 * once the client has taken nothing of it for `send_timeout_seconds`, as a stream is, and logged
 * 499 `cancelled` (never delivered); until then it holds its key's `max_in_flight` place, so a key's
 * clients that leave replies unread hold at most that many of them.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, rawConnection, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

const digest = (secret: string) => `sha256:${createHash('sha256').update(secret).digest('hex')}`;

beforeAll(async () => {
  harness = await startGatewayHarness({
    send_timeout_seconds: 2,
    keys: [{ name: 'single', key: digest('single-key'), max_in_flight: 1 }],
  });
});
afterAll(async () => {
  await harness?.close();
});

const body = JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] });

/** A non-streamed Chat call under the `single` key, through `fetch`: its status. */
async function chat(): Promise<number> {
  const response = await harness.post('/v1/chat/completions', body, { authorization: 'Bearer single-key' });
  await response.arrayBuffer();
  return response.status;
}

describe('a whole reply its client never reads', () => {
  // A query string, or an absolute-form target (served by the Hono app), changes none of it: with
  // either, the key's place was given back before the reply was written, and a second call served.
  it.each(['/v1/chat/completions', '/v1/chat/completions?x=1', 'http://localhost/v1/chat/completions'])(
    'is cut off after send_timeout_seconds and logged 499, holding its key’s max_in_flight place until then (%s)',
    async (target) => {
      // 8 MB of text: more than the loopback socket's buffers take from a client that reads nothing.
      harness.emulator.enqueue({
        type: 'scripted',
        content: [{ type: 'text', text: 'y'.repeat(8_000_000) }],
        chunkSize: 65_536,
      });
      const served = harness.nextServed();
      const logged = harness.accessLog.length;
      const { socket, received } = rawConnection(harness.server.url);
      try {
        socket.write(
          `POST ${target} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer single-key\r\n` +
            `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        socket.pause();
        await served;
        // The reply is written (its first bytes wait in the paused socket's buffer), not read: the
        // key's one place is still held. (Written once the gateway has turned 8 MB of upstream reply
        // into its own: under load that took more than poll's default second, so the wait is wide.)
        await expect.poll(() => socket.readableLength, { timeout: 10_000 }).toBeGreaterThan(0);
        harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Second.' }] });
        expect(await chat()).toBe(429);
        expect(harness.accessLog.slice(logged).map((line) => line.status)).toEqual([429]);
        // Cut once the client has taken nothing for 2 s: the connection closes, the reply logged 499.
        await expect
          .poll(() => harness.accessLog.slice(logged).map((line) => line.status), { timeout: 8000 })
          .toEqual([429, 499]);
        expect(harness.accessLog.at(-1)).toMatchObject({ errorClass: 'cancelled', key: 'single' });
        expect(received()).toBe('');
        // Its place given back: the key's next call is served.
        expect(await chat()).toBe(200);
      } finally {
        socket.destroy();
      }
    },
  );

  it('a stored response read (the Hono app’s route) is cut off so too, and logged 499', async () => {
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'z'.repeat(8_000_000) }],
      chunkSize: 65_536,
    });
    const created = await harness.post(
      '/v1/responses',
      { model: 'up-responses', input: 'Hi' },
      { authorization: 'Bearer single-key' },
    );
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const logged = harness.accessLog.length;
    const { socket, received } = rawConnection(harness.server.url);
    try {
      socket.write(
        `GET /v1/responses/${id} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer single-key\r\n\r\n`,
      );
      socket.pause();
      const reads = () =>
        harness.accessLog.slice(logged).filter((line) => line.path === `/v1/responses/${id}`);
      await expect.poll(() => reads().map((line) => line.status), { timeout: 8000 }).toEqual([499]);
      expect(received()).toBe('');
      // Its place given back: the key's next call is served.
      harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Next.' }] });
      expect(await chat()).toBe(200);
    } finally {
      socket.destroy();
    }
  });
});
