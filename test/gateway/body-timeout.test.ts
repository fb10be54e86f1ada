/**
 * A client that stops sending its request body: a 408 in the route's protocol shape after
 * `body_timeout_seconds` without a byte, and the connection closed; a body that keeps coming,
 * however slowly, is served.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const hello = (text: string) => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text }],
  usage: { input: 3, output: 2 },
});

beforeAll(async () => {
  harness = await startGatewayHarness({ body_timeout_seconds: 0.5 });
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

/** A raw socket to the gateway: what it has received so far, and when it closed. */
function rawConnection() {
  const { port } = new URL(harness.server.url);
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  return { socket, received: () => text, closed };
}

const chatBody = () => JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] });

describe('the request body timeout', () => {
  it.each([
    ['/v1/chat/completions', /"type":"server_error"/, 'served directly'],
    ['/v1/messages', /"type":"timeout_error"/, 'served directly'],
    ['/v1beta/models/up-gemini:generateContent', /"status":"DEADLINE_EXCEEDED"/, 'served directly'],
    ['/v1/messages/count_tokens', /"type":"timeout_error"/, 'the Hono app’s route'],
  ])(
    'a body that stops arriving (%s) is a 408 in that protocol’s shape after the body timeout, then the connection closes (%s)',
    async (path, shape) => {
      const { socket, received, closed } = rawConnection();
      const started = performance.now();
      // A small declared length Node would otherwise wait for (and drain) to keep the connection.
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`,
      );
      await closed;
      expect(performance.now() - started).toBeGreaterThanOrEqual(450);
      const [head, body] = received().split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 408 /);
      expect(head?.toLowerCase()).toContain('connection: close');
      expect(body).toMatch(shape);
      expect(body).toContain('sent nothing for 0.5 s');
    },
  );

  it('a body sent slowly, each piece within the body timeout, is served (the timeout is per pause, not per body)', async () => {
    harness.emulator.enqueue(hello('Slowly.'));
    const { socket, received } = rawConnection();
    const body = chatBody();
    const pieces = [body.slice(0, 10), body.slice(10, 20), body.slice(20)];
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    for (const piece of pieces) {
      socket.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await vi.waitFor(() => expect(received()).toContain('Slowly.'));
    expect(received()).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
  });
});
