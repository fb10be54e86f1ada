/**
 * Paths are routed as sent: one with a dot-segment (`/../`, `/./`, `%2e%2e`), an empty segment, an
 * encoded slash or a percent-encoded unreserved character is a 404 in its protocol's shape, never
 * resolved to another route (a proxy in front allowing or denying paths by their text would be
 * bypassed), on the gateway's own server and in its Hono app served by @hono/node-server. Real
 * Gemini paths (model names with dots, an encoded colon, `?alt=sse&key=`) are served.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, rawConnection, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  // A model named as Google names it (dots in the name) beside the harness's aliases.
  harness = await startGatewayHarness(
    {},
    {},
    {
      'gemini:gemini-2.5-flash': { aliases: ['up-gemini', 'gemini-2.5-flash'] },
    },
  );
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const chat = { model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] };
const gemini = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };

/** One request over a raw socket to `url` (the path sent byte for byte): its status line and body. */
async function send(url: string, method: string, path: string, body?: object, headers = '') {
  const text = body === undefined ? '' : JSON.stringify(body);
  const { socket, received, closed } = rawConnection(url);
  socket.write(
    `${method} ${path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n${headers}` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
  await closed;
  const [head = '', answer = ''] = received().split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: answer };
}

const refused: Array<[string, string, object | undefined, string, RegExp]> = [
  ['POST', '/v1/messages/../chat/completions', chat, '', /"type":"not_found_error"/],
  ['POST', '/v1/messages/%2e%2e/chat/completions', chat, '', /"type":"not_found_error"/],
  ['POST', '/v1/messages/%2E%2E/chat/completions', chat, '', /"type":"not_found_error"/],
  ['POST', '/v1/./chat/completions', chat, '', /"type":"invalid_request_error"/],
  ['POST', '/v1//chat/completions', chat, '', /"type":"invalid_request_error"/],
  ['POST', '/v1/%63hat/completions', chat, '', /"type":"invalid_request_error"/],
  ['POST', '/v1/chat%2fcompletions', chat, '', /"type":"invalid_request_error"/],
  ['POST', 'http://localhost/v1/x/../chat/completions', chat, '', /"type":"invalid_request_error"/],
  ['POST', '/v1/x/../messages/count_tokens', chat, 'anthropic-version: 2023-06-01\r\n', /"not_found_error"/],
  ['POST', '/v1beta/models/x/../up-gemini:generateContent', gemini, '', /"status":"NOT_FOUND"/],
  ['POST', '/v1beta/models/%2e%2e/models/up-gemini:streamGenerateContent?alt=sse', gemini, '', /"NOT_FOUND"/],
  ['POST', '/v1beta/./models/up-gemini:countTokens', gemini, '', /"status":"NOT_FOUND"/],
  ['POST', '/v1beta/%6dodels/up-gemini:generateContent', gemini, '', /"status":"NOT_FOUND"/],
  ['POST', '/v1/responses/%69nput_tokens', chat, '', /"type":"invalid_request_error"/],
  ['GET', '/v1/models/%2e%2e', undefined, '', /"type":"invalid_request_error"/],
  ['GET', '/v1/x/../models', undefined, '', /"type":"invalid_request_error"/],
  ['GET', '/x/../healthz', undefined, '', /"type":"invalid_request_error"/],
];

describe('a path with dot-segments, empty segments or encoded characters that would read as another path', () => {
  it.each(refused)(
    '%s %s is a 404 in its protocol’s shape, and nothing goes upstream (the gateway’s server)',
    async (method, path, body, headers, shape) => {
      const sent = harness.emulator.requests.length;
      const answer = await send(harness.server.url, method, path, body, headers);
      expect(answer.status).toBe(404);
      expect(answer.body).toMatch(shape);
      expect(answer.body).toContain('a path is routed as sent');
      expect(harness.emulator.requests.length).toBe(sent);
    },
  );

  it('the Hono app served by @hono/node-server (mounted on another server) refuses them too', async () => {
    const server = serve({ fetch: harness.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const sent = harness.emulator.requests.length;
      for (const [method, path, body, headers, shape] of refused) {
        const answer = await send(url, method, path, body, headers);
        expect([path, answer.status]).toEqual([path, 404]);
        expect(answer.body).toMatch(shape);
      }
      expect(harness.emulator.requests.length).toBe(sent);
    } finally {
      server.close();
    }
  });

  it('a refused path pipelined before a valid request keeps the connection: the next one is served', async () => {
    harness.emulator.enqueue(scriptedText('Served.'));
    const text = JSON.stringify(chat);
    const request = (path: string) =>
      `POST ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
    const { socket, received } = rawConnection(harness.server.url);
    socket.write(request('/v1/messages/../chat/completions') + request('/v1/chat/completions'));
    await expect.poll(() => received()).toContain('Served.');
    expect(received().match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 404', 'HTTP/1.1 200']);
    socket.destroy();
  });
});

describe('Gemini paths as the SDKs send them', () => {
  it.each([
    ['/v1beta/models/gemini-2.5-flash:generateContent', 'a model name with dots'],
    ['/v1/models/gemini-2.5-flash:generateContent', 'the v1 API version'],
    ['/v1beta/models/gemini-2.5-flash%3AgenerateContent', 'an encoded colon'],
    ['/v1beta/models/gemini%2D2%2E5-flash:generateContent', 'a model name percent-encoded'],
    ['/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=a%2e.b', 'a query with escapes'],
  ])('%s (%s) is served', async (path) => {
    harness.emulator.enqueue(scriptedText('Gemini.'));
    const answer = await send(harness.server.url, 'POST', path, gemini);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('Gemini.');
  });

  it('GET /v1beta/models/gemini-2.5-flash and the count are served; a model name with an encoded slash is looked up, not refused', async () => {
    expect((await send(harness.server.url, 'GET', '/v1beta/models/gemini-2.5-flash')).status).toBe(200);
    const slashed = await send(harness.server.url, 'GET', '/v1/models/org%2Fmodel');
    expect(slashed.status).toBe(404);
    expect(slashed.body).toContain("The model 'org/model' does not exist");
    const counted = await send(
      harness.server.url,
      'POST',
      '/v1beta/models/gemini-2.5-flash:countTokens',
      gemini,
    );
    expect(counted.status).toBe(200);
    expect(counted.body).toContain('totalTokens');
  });
});
