/**
 * The count routes answer the provider's own count where the routed model's adapter can ask for
 * one (Anthropic's `count_tokens`, Gemini's `:countTokens`, OpenAI's `/responses/input_tokens`),
 * saying so in `x-switchyard-token-count: exact`; the local estimate answers (`estimate`) when the
 * upstream fails to count (429, 5xx), and an upstream 400 is the client's 400.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { anthropicError, googleError, openaiError } from 'switchyard-ai/testing';
import { emulatedTokenCount } from '../../src/testing/emulator/builtin.ts';
import { userText } from '../../src/core/transcript.ts';
import { anthropicClient, createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterEach(() => harness.emulator.setCountScript(undefined));
afterAll(async () => {
  await harness?.close();
});

const hello = [{ role: 'user' as const, content: 'Hello, how are you?' }];

/** The upstream requests made since `before`. */
const since = (before: number) => harness.emulator.requests.slice(before);

it('Anthropic SDK messages.countTokens: the upstream count_tokens is asked (its key, no max_tokens) and its number returned, marked exact', async () => {
  const before = harness.emulator.requests.length;
  const { anthropic } = createClients(harness.server.url);
  const { data, response } = await anthropic.messages
    .countTokens({ model: 'up-anthropic', messages: hello, system: 'Be brief.' })
    .withResponse();
  const [asked, ...more] = since(before);
  expect(more).toEqual([]);
  expect(asked).toMatchObject({ method: 'POST', path: '/v1/messages/count_tokens' });
  expect(asked!.headers['x-api-key']).toBe('upstream-secret-key');
  expect(asked!.body).toEqual({
    model: 'claude-sonnet-4-5',
    system: 'Be brief.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello, how are you?' }] }],
  });
  expect(data.input_tokens).toBe(emulatedTokenCount(asked!.body));
  // Not the local estimate (12 for this request without its system prompt).
  expect(data.input_tokens).not.toBe(12);
  expect(response.headers.get('x-switchyard-token-count')).toBe('exact');
});

it('@google/genai models.countTokens: the upstream :countTokens is asked with the whole generateContentRequest and its number returned', async () => {
  const before = harness.emulator.requests.length;
  const { google } = createClients(harness.server.url);
  const counted = await google.models.countTokens({
    model: 'up-gemini',
    contents: [{ role: 'user', parts: [{ text: 'Hello there, how are you today?' }] }],
  });
  const [asked, ...more] = since(before);
  expect(more).toEqual([]);
  expect(asked!.path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
  expect(asked!.headers['x-goog-api-key']).toBe('upstream-secret-key');
  expect(asked!.body).toMatchObject({
    generateContentRequest: {
      model: 'models/gemini-2.5-flash',
      contents: [{ role: 'user', parts: [{ text: 'Hello there, how are you today?' }] }],
    },
  });
  expect(counted.totalTokens).toBe(emulatedTokenCount(asked!.body));
});

it('openai responses.inputTokens.count: the upstream /responses/input_tokens is asked without the generation-only fields', async () => {
  const before = harness.emulator.requests.length;
  const { openai } = createClients(harness.server.url);
  const { data, response } = await openai.responses.inputTokens
    .count({ model: 'up-responses', input: 'Hello, how are you?', instructions: 'Be brief.' })
    .withResponse();
  const [asked, ...more] = since(before);
  expect(more).toEqual([]);
  expect(asked!.path).toBe('/v1/responses/input_tokens');
  expect(asked!.headers.authorization).toBe('Bearer upstream-secret-key');
  const body = asked!.body as Record<string, unknown>;
  expect(body).toMatchObject({ model: 'gpt-5-mini', instructions: 'Be brief.' });
  for (const field of ['stream', 'store', 'max_output_tokens', 'include', 'temperature'])
    expect(body).not.toHaveProperty(field);
  expect(data).toEqual({ object: 'response.input_tokens', input_tokens: emulatedTokenCount(body) });
  expect(response.headers.get('x-switchyard-token-count')).toBe('exact');
});

it.each([
  [503, anthropicError(503, 'overloaded_error', 'Overloaded')],
  [429, anthropicError(429, 'rate_limit_error', 'Too many requests')],
])(
  'an upstream %i to the count is answered with the local estimate, marked estimate, with a WARN',
  async (status, script) => {
    harness.emulator.setCountScript(script);
    const warnings = harness.logger.entries.length;
    const before = harness.emulator.requests.length;
    const response = await harness.post(
      '/v1/messages/count_tokens',
      { model: 'up-anthropic', messages: hello },
      anthropicClient,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-token-count')).toBe('estimate');
    const local = await harness.switchyard.estimateInputTokens({
      model: 'up-anthropic',
      transcript: [userText('Hello, how are you?')],
    });
    expect(await response.json()).toEqual({ input_tokens: local });
    // The upstream was asked once (never retried) and failed.
    expect(since(before).map((request) => request.path)).toEqual(['/v1/messages/count_tokens']);
    const warning = harness.logger.entries.slice(warnings).find((entry) => entry.message.includes('counted'));
    expect(warning?.fields).toMatchObject({ model: 'anthropic:claude-sonnet-4-5', status });
    expect(JSON.stringify(warning)).not.toContain('upstream-secret-key');
  },
);

it('an upstream 400 to the count is the client’s 400 in its own shape, not an estimate', async () => {
  harness.emulator.setCountScript(
    anthropicError(400, 'invalid_request_error', 'messages.0.content: unknown block type'),
  );
  const response = await harness.post(
    '/v1/messages/count_tokens',
    { model: 'up-anthropic', messages: hello },
    anthropicClient,
  );
  expect(response.status).toBe(400);
  expect(response.headers.get('x-switchyard-token-count')).toBeNull();
  expect(await response.json()).toMatchObject({
    type: 'error',
    error: { type: 'invalid_request_error', message: expect.stringMatching(/unknown block type/) },
  });
  // The same in Gemini's and Responses' shapes.
  harness.emulator.setCountScript(googleError(400, 'Invalid value at contents', 'INVALID_ARGUMENT'));
  const gemini = await harness.post(
    '/v1beta/models/up-gemini:countTokens',
    { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
    { 'x-goog-api-key': 'client-key' },
  );
  expect(gemini.status).toBe(400);
  expect(await gemini.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  harness.emulator.setCountScript(openaiError(400, "Invalid value: 'x'", { param: 'input' }));
  const responses = await harness.post(
    '/v1/responses/input_tokens',
    { model: 'up-responses', input: 'Hi' },
    { authorization: 'Bearer client-key' },
  );
  expect(responses.status).toBe(400);
  expect(await responses.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
});

it('a model whose adapter has no count endpoint (Chat Completions) is estimated without an upstream call, marked estimate', async () => {
  const before = harness.emulator.requests.length;
  const response = await harness.post(
    '/v1/messages/count_tokens',
    { model: 'up-chat', messages: hello },
    anthropicClient,
  );
  expect(response.headers.get('x-switchyard-token-count')).toBe('estimate');
  // o200k: 6 tokens of text, plus 3 for the request and 4 for the message (OpenAI's framing).
  expect(await response.json()).toEqual({ input_tokens: 13 });
  expect(since(before)).toEqual([]);
});

it('a client that leaves while the upstream count is in flight aborts it: the upstream sees its socket close', async () => {
  harness.emulator.setCountScript({
    type: 'json',
    body: { input_tokens: 1 },
    fault: { delayHeadersMs: 3000 },
  });
  const before = harness.emulator.requests.length;
  const served = harness.nextServed();
  const client = new AbortController();
  const posted = fetch(`${harness.server.url}/v1/messages/count_tokens`, {
    method: 'POST',
    body: JSON.stringify({ model: 'up-anthropic', messages: hello }),
    headers: { 'content-type': 'application/json', ...anthropicClient },
    signal: client.signal,
  }).catch((error: unknown) => error);
  await expect.poll(() => since(before).length, { timeout: 2000, interval: 10 }).toBe(1);
  const left = performance.now();
  client.abort();
  expect(await posted).toMatchObject({ name: 'AbortError' });
  // Closed unanswered, long before the 3 s the upstream would have taken.
  expect(await served).toMatchObject({ path: '/v1/messages/count_tokens', complete: false });
  expect(performance.now() - left).toBeLessThan(1000);
});
