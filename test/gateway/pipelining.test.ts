/**
 * Requests pipelined on one connection, over raw sockets: every route — those served from Node and
 * those the Hono app serves — starts only when the reply before it has finished and its own owns
 * the socket, so replies come back whole and in order, and nothing goes upstream for a request
 * before its turn.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, rawConnection as rawSocket, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const rawConnection = () => rawSocket(harness.server.url);

/** A whole HTTP/1.1 request's bytes. */
function request(method: string, path: string, body?: object, headers = ''): string {
  const text = body === undefined ? '' : JSON.stringify(body);
  const length =
    body === undefined
      ? ''
      : `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n`;
  return `${method} ${path} HTTP/1.1\r\nhost: localhost\r\n${headers}${length}\r\n${text}`;
}

const streamed = () =>
  request('POST', '/v1/chat/completions', {
    model: 'up-chat',
    stream: true,
    messages: [{ role: 'user', content: 'Hi' }],
  });

/** A slow stream: 20 pieces 30 ms apart. */
const dripping = () =>
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'drip '.repeat(20) }],
    chunkSize: 5,
    fault: { dripMs: 30 },
  });

describe('pipelined requests to the Hono app’s routes', () => {
  it('a count_tokens and a models listing pipelined behind a stream start only once the stream has ended, and are answered after it, in order', async () => {
    dripping();
    const sent = harness.emulator.requests.length;
    const { socket, received } = rawConnection();
    const count = request(
      'POST',
      '/v1/messages/count_tokens',
      { model: 'up-anthropic', messages: [{ role: 'user', content: 'Count me.' }] },
      'anthropic-version: 2023-06-01\r\n',
    );
    socket.write(streamed() + count + request('GET', '/v1/models'));
    await expect.poll(() => received()).toContain('drip');
    // The stream is still dripping: the count has not gone upstream.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(received()).not.toContain('[DONE]');
    expect(harness.emulator.requests.slice(sent).map((asked) => asked.path)).toEqual([
      '/v1/chat/completions',
    ]);
    await expect.poll(() => received().match(/HTTP\/1\.1 \d+/g)?.length ?? 0, { timeout: 5000 }).toBe(3);
    const text = received();
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(text.indexOf('[DONE]')).toBeLessThan(text.indexOf('"input_tokens"'));
    expect(text.indexOf('"input_tokens"')).toBeLessThan(text.indexOf('"object":"list"'));
    expect(harness.emulator.requests.slice(sent).map((asked) => asked.path)).toEqual([
      '/v1/chat/completions',
      '/v1/messages/count_tokens',
    ]);
    socket.destroy();
  });

  it('a Gemini countTokens pipelined behind a stream whose client then leaves never goes upstream', async () => {
    dripping();
    const sent = harness.emulator.requests.length;
    const { socket, received, closed } = rawConnection();
    const count = request('POST', '/v1beta/models/up-gemini:countTokens', {
      contents: [{ role: 'user', parts: [{ text: 'Count me.' }] }],
    });
    socket.write(streamed() + count);
    await expect.poll(() => received()).toContain('drip');
    socket.destroy();
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(harness.emulator.requests.slice(sent).map((asked) => asked.path)).toEqual([
      '/v1/chat/completions',
    ]);
  });
});
