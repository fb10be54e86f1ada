/**
 * A connection Node hands over to the gateway (a WebSocket upgrade it refuses, a `CONNECT`) is
 * answered and closed whatever its client does: one that resets at once does not bring the
 * process down, one that keeps its side open does not keep the connection. The key is checked
 * before any frame is read.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { startGatewayHarness } from './harness.ts';

/** A client's text frame holding a request (masked with a zero key: the payload goes as it is). */
const requestFrame = (() => {
  const request = { model: 'up-chat', transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }] };
  const payload = Buffer.from(
    JSON.stringify({ type: 'request', id: 'request-sent-with-the-handshake', request }),
  );
  // 126 to 65,535 bytes: a 16-bit length.
  const header = Buffer.from([0x81, 0x80 | 126, 0, 0, 0, 0, 0, 0]);
  header.writeUInt16BE(payload.length, 2);
  return Buffer.concat([header, payload]);
})();

it.each([
  ['a WebSocket upgrade with a wrong key', 'GET /switchyard/v1/ws', 'authorization: Bearer wrong\r\n'],
  ['a Responses WebSocket upgrade with a wrong key', 'GET /v1/responses', 'authorization: Bearer wrong\r\n'],
  ['a CONNECT', 'CONNECT example.com:443', ''],
])(
  '%s: a client that resets at once does not bring the gateway down; one that keeps its side open is closed',
  async (_, line, extra) => {
    const key = `sha256:${createHash('sha256').update('team-key').digest('hex')}`;
    const keyed = await startGatewayHarness({ keys: [{ name: 'team', key }] });
    try {
      const { port } = new URL(keyed.server.url);
      const head =
        `${line} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;
      for (let attempt = 0; attempt < 40; attempt++) {
        const socket = connect(Number(port), '127.0.0.1');
        socket.on('error', () => {});
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write(head);
        socket.resetAndDestroy();
      }
      // Kept open on the client's side (and sending): the gateway answers and ends it itself.
      const open = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
      open.on('error', () => {});
      let answer = '';
      open.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      const closed = new Promise((resolve) => open.once('close', resolve));
      // A whole request frame in the same packet as the handshake: never read (the key is checked first).
      open.write(Buffer.concat([Buffer.from(head), requestFrame]));
      const sending = setInterval(() => open.write(requestFrame), 100);
      await closed;
      clearInterval(sending);
      expect(answer).toMatch(/^HTTP\/1\.1 (401|405) /);
      expect(keyed.emulator.requests).toHaveLength(0);
      expect((await fetch(`${keyed.server.url}/healthz`)).status).toBe(200);
    } finally {
      await keyed.close();
    }
  },
);
