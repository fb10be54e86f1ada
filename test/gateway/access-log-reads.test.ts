/**
 * The routes behind the keys that generate nothing — a stored reply's read, listing and deletion,
 * the three token counts, the model listings, a key's usage — are logged and counted as every
 * request is: one access log line (status, the key's name, never the key or the prompt) and one
 * `requests_total` under the route's own `route` label. Before, none wrote a line or a metric,
 * refusals included: a key guessing response ids, or a deletion, left no trace.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keyDigest } from '../support/gateway-processes.ts';
import { createClients, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness({
    keys: [
      { name: 'reader', key: keyDigest('key-reader'), models: ['up-responses', 'up-anthropic', 'up-gemini'] },
      {
        name: 'narrow',
        key: keyDigest('key-narrow'),
        models: ['up-chat'],
        limits: { requests_per_minute: 2 },
      },
      { name: 'ops', key: keyDigest('key-ops'), admin: true },
    ],
  });
});
beforeEach(() => harness.emulator.clear());
afterAll(async () => {
  await harness?.close();
});

const secret = 'a prompt that must never reach the log';
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const get = (path: string, headers: Record<string, string>, method = 'GET') =>
  fetch(`${harness.server.url}${path}`, { method, headers });
/** The access log lines written since `before`, once `count` of them are there. */
const linesSince = async (before: number, count: number) => {
  await expect.poll(() => harness.accessLog.length - before).toBe(count);
  return harness.accessLog.slice(before);
};
const requestsTotal = async () =>
  (await (await get('/metrics', bearer('key-ops'))).text())
    .split('\n')
    .filter((line) => line.startsWith('switchyard_gateway_requests_total{'));

describe('the routes that generate nothing', () => {
  it('each request is one access log line and one requests_total under its route: reads, a deletion, counts, listings, usage', async () => {
    const { openai } = createClients(harness.server.url, 'key-reader');
    harness.emulator.enqueue(scriptedText('Stored.'));
    const reply = await openai.responses.create({ model: 'up-responses', input: secret });
    const before = harness.accessLog.length;
    await openai.responses.retrieve(reply.id);
    await openai.responses.inputItems.list(reply.id);
    expect(
      (
        await harness.post(
          '/v1/responses/input_tokens',
          { model: 'up-responses', input: secret },
          bearer('key-reader'),
        )
      ).status,
    ).toBe(200);
    const anthropicCount = await harness.post(
      '/v1/messages/count_tokens',
      { model: 'up-anthropic', messages: [{ role: 'user', content: secret }] },
      { 'x-api-key': 'key-reader', 'anthropic-version': '2023-06-01' },
    );
    expect(anthropicCount.status).toBe(200);
    const geminiCount = await harness.post(
      '/v1beta/models/up-gemini:countTokens',
      { contents: [{ role: 'user', parts: [{ text: secret }] }] },
      { 'x-goog-api-key': 'key-reader' },
    );
    expect(geminiCount.status).toBe(200);
    expect((await get('/v1/models', bearer('key-reader'))).status).toBe(200);
    expect((await get('/v1/models/up-responses', bearer('key-reader'))).status).toBe(200);
    expect((await get('/v1beta/models', { 'x-goog-api-key': 'key-reader' })).status).toBe(200);
    await openai.responses.delete(reply.id);
    expect((await get('/switchyard/v1/keys/reader/usage', bearer('key-ops'))).status).toBe(200);
    const lines = await linesSince(before, 10);
    expect(lines.map((line) => [line.path, line.status, line.key])).toEqual([
      [`/v1/responses/${reply.id}`, 200, 'reader'],
      [`/v1/responses/${reply.id}/input_items`, 200, 'reader'],
      ['/v1/responses/input_tokens', 200, 'reader'],
      ['/v1/messages/count_tokens', 200, 'reader'],
      ['/v1beta/models/up-gemini:countTokens', 200, 'reader'],
      ['/v1/models', 200, 'reader'],
      ['/v1/models/up-responses', 200, 'reader'],
      ['/v1beta/models', 200, 'reader'],
      [`/v1/responses/${reply.id}`, 200, 'reader'],
      ['/switchyard/v1/keys/reader/usage', 200, 'ops'],
    ]);
    // A count names its model, as a generation's line does; no line holds the prompt or a key.
    expect(lines.slice(2, 5).map((line) => line.model)).toEqual([
      'up-responses',
      'up-anthropic',
      'up-gemini',
    ]);
    for (const line of lines) expect(JSON.stringify(line)).not.toMatch(/must never|key-reader|key-ops/);
    const metrics = await requestsTotal();
    expect(metrics).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /protocol="openai-responses",model="unknown",status="200",route="stored_response"\} 3$/,
        ),
        expect.stringMatching(
          /protocol="openai-responses",model="responses:gpt-5-mini",status="200",route="count_tokens"\} 1$/,
        ),
        expect.stringMatching(
          /protocol="anthropic-messages",model="anthropic:claude-sonnet-4-5",status="200",route="count_tokens"\} 1$/,
        ),
        expect.stringMatching(
          /protocol="gemini",model="gemini:gemini-2.5-flash",status="200",route="count_tokens"\} 1$/,
        ),
        expect.stringMatching(/protocol="openai-chat",model="unknown",status="200",route="models"\} 2$/),
        expect.stringMatching(/protocol="gemini",model="unknown",status="200",route="models"\} 1$/),
        expect.stringMatching(/protocol="openai-chat",model="unknown",status="200",route="key_usage"\} 1$/),
        expect.stringMatching(
          /protocol="openai-responses",model="responses:gpt-5-mini",status="200",route="generate"\} 1$/,
        ),
      ]),
    );
  });

  it('refusals are logged and counted: a count for a model outside the key (403), a guessed id (404), the minute’s 429', async () => {
    const before = harness.accessLog.length;
    // A model outside the key: the same 403 as on a generation route, and likewise logged.
    const count = await harness.post(
      '/v1/messages/count_tokens',
      { model: 'up-anthropic', messages: [{ role: 'user', content: secret }] },
      { 'x-api-key': 'key-narrow', 'anthropic-version': '2023-06-01' },
    );
    expect(count.status).toBe(403);
    // That 403 took none of the key's two requests of the minute (a generation's 403 takes none):
    // two guessed ids are read (404), the third request is the 429.
    expect((await get('/v1/responses/resp_guess1', bearer('key-narrow'))).status).toBe(404);
    expect((await get('/v1/responses/resp_guess2', bearer('key-narrow'))).status).toBe(404);
    expect((await get('/v1/responses/resp_guess3', bearer('key-narrow'), 'DELETE')).status).toBe(429);
    // No key at all on a listing: the 401 every refused request gets, on its route.
    expect((await get('/v1/models', {})).status).toBe(401);
    const lines = await linesSince(before, 5);
    expect(lines.map((line) => [line.path, line.status, line.errorClass, line.key])).toEqual([
      ['/v1/messages/count_tokens', 403, 'auth', 'narrow'],
      ['/v1/responses/resp_guess1', 404, 'invalid_request', 'narrow'],
      ['/v1/responses/resp_guess2', 404, 'invalid_request', 'narrow'],
      ['/v1/responses/resp_guess3', 429, 'rate_limit', 'narrow'],
      ['/v1/models', 401, 'auth', null],
    ]);
    expect(lines[0]?.model).toBe('up-anthropic');
    const metrics = await requestsTotal();
    expect(metrics).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /protocol="anthropic-messages",model="unknown",status="403",route="count_tokens"\} 1$/,
        ),
        expect.stringMatching(
          /protocol="openai-responses",model="unknown",status="404",route="stored_response"\} 2$/,
        ),
        expect.stringMatching(
          /protocol="openai-responses",model="unknown",status="429",route="stored_response"\} 1$/,
        ),
        expect.stringMatching(/protocol="openai-chat",model="unknown",status="401",route="models"\} 1$/),
      ]),
    );
  });
});
