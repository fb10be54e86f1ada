/**
 * A key's `requests_per_minute` and `max_in_flight` hold for the routes that generate nothing — the
 * token counts and the stored Responses reads — as for generations. Before, a key refused its
 * third generation could still read a 7 MB stored conversation twenty times at once (each read
 * parses the whole entry) or tokenize megabytes through the count routes, without limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyDigest } from '../support/gateway-processes.ts';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness({
    keys: [
      { name: 'limited', key: keyDigest('key-limited'), limits: { requests_per_minute: 2 } },
      { name: 'single', key: keyDigest('key-single'), max_in_flight: 1 },
      { name: 'other', key: keyDigest('key-other') },
    ],
  });
});
afterAll(async () => {
  await harness?.close();
});

const count = (key: string) =>
  harness.post(
    '/v1/messages/count_tokens',
    JSON.stringify({ model: 'up-anthropic', messages: [{ role: 'user', content: 'Hi' }] }),
    { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
  );
const countGemini = (key: string) =>
  harness.post(
    '/v1beta/models/up-gemini:countTokens',
    JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
    { 'x-goog-api-key': key },
  );
const countResponses = (key: string) =>
  harness.post('/v1/responses/input_tokens', JSON.stringify({ model: 'up-responses', input: 'Hi' }), {
    authorization: `Bearer ${key}`,
  });
const retrieve = (key: string) =>
  fetch(`${harness.server.url}/v1/responses/resp_unknown`, { headers: { authorization: `Bearer ${key}` } });

describe('requests_per_minute on the routes that generate nothing', () => {
  it('the third count within the minute is a 429 in the client’s shape with retry-after; another key is served', async () => {
    expect((await count('key-limited')).status).toBe(200);
    expect((await countGemini('key-limited')).status).toBe(200);
    const third = await count('key-limited');
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await third.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const gemini = await countGemini('key-limited');
    expect(gemini.status).toBe(429);
    expect(await gemini.json()).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED' } });
    expect((await countResponses('key-limited')).status).toBe(429);
    expect((await retrieve('key-limited')).status).toBe(429);
    expect((await count('key-other')).status).toBe(200);
  });
});

describe('max_in_flight on the routes that generate nothing', () => {
  it('while a key’s generation is in flight its stored-reply read and its count are 429s; after it, served', async () => {
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'slow' }],
      usage: { input: 1, output: 1 },
      fault: { delayHeadersMs: 1500 },
    });
    const before = harness.emulator.requests.length;
    const generation = harness.post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] }),
      { authorization: 'Bearer key-single' },
    );
    await expect.poll(() => harness.emulator.requests.length).toBe(before + 1);
    const read = await retrieve('key-single');
    expect(read.status).toBe(429);
    expect(await read.text()).toMatch(/1 requests in flight/);
    expect((await countResponses('key-single')).status).toBe(429);
    expect((await generation).status).toBe(200);
    expect((await retrieve('key-single')).status).toBe(404);
    expect((await countResponses('key-single')).status).toBe(200);
  });
});
