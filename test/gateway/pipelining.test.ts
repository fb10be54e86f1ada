/**
 * Requests pipelined on one connection, over raw sockets: every route — those served from Node and
 * those the Hono app serves — starts only when the reply before it has finished and its own owns
 * the socket, so replies come back whole and in order, and nothing goes upstream for a request
 * before its turn. Node's request timeout (here 0.5 s) does not count the time a request waits for
 * its turn: one behind a longer stream is served after it, never dropped with the connection.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, rawConnection as rawSocket, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness({ request_timeout_seconds: 0.5 });
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

/** A slow stream: `pieces` pieces 30 ms apart. */
const dripping = (pieces = 20) =>
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'drip '.repeat(pieces) }],
    chunkSize: 5,
    fault: { dripMs: 30 },
  });

/** A Chat request whose body is `size` characters of text: more than Node buffers, so it is left unread while it waits. */
const large = (size: number) =>
  request('POST', '/v1/chat/completions', {
    model: 'up-chat',
    messages: [{ role: 'user', content: 'x'.repeat(size) }],
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

describe('Node’s request timeout and a request waiting for its turn', () => {
  it('a large request pipelined behind a stream longer than the request timeout is served after it, not dropped with the connection', async () => {
    dripping(60);
    harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Second.' }] });
    const { socket, received } = rawConnection();
    socket.write(streamed() + large(300_000));
    await expect.poll(() => received(), { timeout: 4000 }).toContain('Second.');
    const text = received();
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(text.indexOf('[DONE]')).toBeLessThan(text.indexOf('Second.'));
    expect(harness.emulator.requests.at(-1)?.body).toMatchObject({
      messages: [{ role: 'user', content: 'x'.repeat(300_000) }],
    });
    socket.destroy();
  });

  it('headers cut short behind a stream, completed after the request timeout while it runs: all three served', async () => {
    dripping(60);
    const { socket, received } = rawConnection();
    const third = request('GET', '/v1/models');
    socket.write(streamed() + request('GET', '/healthz') + third.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(received()).not.toContain('[DONE]');
    socket.write(third.slice(20));
    await expect.poll(() => received().match(/HTTP\/1\.1 \d+/g)?.length ?? 0, { timeout: 4000 }).toBe(3);
    expect(received().match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(received()).toContain('"object":"list"');
    socket.destroy();
  });

  it('a pipelined body that stops arriving after its turn is a 408 once the request timeout has passed since its turn, after the stream whole', async () => {
    dripping(40);
    const { socket, received, closed } = rawConnection();
    const cut = large(300_000);
    socket.write(streamed() + cut.slice(0, 100_000));
    await closed;
    const text = received();
    expect(text).toContain('[DONE]');
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 408']);
    expect(text.slice(text.indexOf('HTTP/1.1 408'))).toContain('the request did not arrive in time');
  });

  it('headers cut short behind a stream and never completed: the stream whole, then a 408 once the headers timeout has passed without a reply in flight', async () => {
    dripping(40);
    const { socket, received, closed } = rawConnection();
    socket.write(streamed() + 'GET /v1/models HTTP/1.1\r\nhost: local');
    const started = performance.now();
    await closed;
    expect(performance.now() - started).toBeGreaterThan(1200 + 400);
    const text = received();
    expect(text).toContain('[DONE]');
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 408']);
  });
});
