/**
 * Token counting (`/v1/messages/count_tokens`, Gemini's `:countTokens`) where the provider does not
 * count (the routed adapter has no count endpoint, or the upstream failed to count: see
 * count-tokens-upstream.test.ts) answers with the routed model's own local estimate — its adapter's
 * calibrated counter, media at its provider's rates — not a loose bound: a client that manages its
 * context window by these counts (Claude Code does) sees about what the provider would bill.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { anthropicError, googleError } from 'switchyard-ai/testing';
import { createClients, type GatewayHarness, startGatewayHarness, anthropicClient } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterEach(() => harness.emulator.setCountScript(undefined));
afterAll(async () => {
  await harness?.close();
});

/** A 1×1 PNG. */
const png =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

it('an Anthropic client counting for a Claude model the upstream cannot count gets Claude’s own estimate of the recorded request (12)', async () => {
  harness.emulator.setCountScript(anthropicError(503, 'overloaded_error', 'Overloaded'));
  const before = harness.emulator.requests.length;
  const { anthropic } = createClients(harness.server.url);
  // test/fixtures/recorded anthropic-text: "Hello, how are you?" was billed 12 input tokens.
  const counted = await anthropic.messages.countTokens({
    model: 'up-anthropic',
    messages: [{ role: 'user', content: 'Hello, how are you?' }],
  });
  expect(counted.input_tokens).toBe(12);
  // Asked once, and failed.
  expect(harness.emulator.requests.length).toBe(before + 1);
});

it('the count follows the routed provider: the same request counted for an OpenAI model is OpenAI’s estimate', async () => {
  const { anthropic } = createClients(harness.server.url);
  const request = { messages: [{ role: 'user' as const, content: 'Hello, how are you?' }] };
  const openai = await anthropic.messages.countTokens({ model: 'up-chat', ...request });
  // o200k: 6 tokens of text, plus 3 for the request and 4 for the message (OpenAI's framing).
  expect(openai.input_tokens).toBe(13);
});

it('a Gemini client’s image counts at Gemini’s rate (258 tokens an image) when the upstream cannot count', async () => {
  harness.emulator.setCountScript(googleError(503, 'The model is overloaded.', 'UNAVAILABLE'));
  const { google } = createClients(harness.server.url);
  const text = { text: 'What is in this picture?' };
  const without = await google.models.countTokens({
    model: 'up-gemini',
    contents: [{ role: 'user', parts: [text] }],
  });
  const withImage = await google.models.countTokens({
    model: 'up-gemini',
    contents: [{ role: 'user', parts: [text, { inlineData: { mimeType: 'image/png', data: png } }] }],
  });
  expect(withImage.totalTokens! - without.totalTokens!).toBe(258);
});

it('an unknown model is the generation routes’ 404, in the client’s shape', async () => {
  const response = await harness.post(
    '/v1/messages/count_tokens',
    { model: 'no-such-model', messages: [{ role: 'user', content: 'Hi' }] },
    anthropicClient,
  );
  expect(response.status).toBe(404);
  expect(((await response.json()) as { error: { type: string } }).error.type).toBe('not_found_error');
});

it('a body far over the model’s window is counted only until past the window (a tokenizer over megabytes would hold the event loop)', async () => {
  const { anthropic } = createClients(harness.server.url);
  const window = harness.switchyard.resolve('up-chat').facts.contextWindow;
  const text = 'lorem '.repeat(Math.ceil((window * 3) / 1)); // ~3 windows of one-token words
  const counted = await anthropic.messages.countTokens({
    model: 'up-chat',
    messages: [{ role: 'user', content: text }],
  });
  expect(counted.input_tokens).toBeGreaterThan(window);
  expect(counted.input_tokens).toBeLessThan(window * 2);
});

it('so is one for a Claude model, and it is not sent upstream: past 1.5× the window (where a generation is refused unsent) the local count stops and answers', async () => {
  const before = harness.emulator.requests.length;
  const window = harness.switchyard.resolve('up-anthropic').facts.contextWindow;
  const text = 'lorem '.repeat(window * 3); // 1.1 tokens a word: ~3.3 windows
  const response = await harness.post(
    '/v1/messages/count_tokens',
    { model: 'up-anthropic', messages: [{ role: 'user', content: text }] },
    anthropicClient,
  );
  expect(response.headers.get('x-switchyard-token-count')).toBe('estimate');
  const counted = (await response.json()) as { input_tokens: number };
  expect(counted.input_tokens).toBeGreaterThan(window * 1.5);
  expect(counted.input_tokens).toBeLessThan(window * 1.51);
  expect(harness.emulator.requests.length).toBe(before);
});

it('a generation far over a Claude model’s window is refused having counted only past 1.5× the window, not the whole body', async () => {
  const before = harness.emulator.requests.length;
  const window = harness.switchyard.resolve('up-anthropic').facts.contextWindow;
  const response = await harness.post(
    '/v1/messages',
    {
      model: 'up-anthropic',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'lorem '.repeat(window * 3) }],
    },
    anthropicClient,
  );
  expect(response.status).toBe(400);
  const { message } = ((await response.json()) as { error: { message: string } }).error;
  const estimated = Number(/estimated (\d+) input tokens/.exec(message)?.[1]);
  expect(estimated).toBeGreaterThan(window * 1.5);
  expect(estimated).toBeLessThan(window * 1.51);
  expect(harness.emulator.requests.length).toBe(before);
});

it('a model whose adapter has no key is still counted (by the cheap bound: no upstream is called), not a 502', async () => {
  const { createGateway } = await import('switchyard-ai/gateway');
  const gateway = createGateway({
    accessLog: () => {},
    logger: { warn: () => {} },
    env: {},
    config: {
      builtins: false,
      adapters: { nokey: { type: 'anthropic', api_key_env: 'MISSING_KEY' } },
      models: { 'nokey:claude-sonnet-4-5': { aliases: ['nk'] } },
    },
  });
  const response = await gateway.app.request('/v1/messages/count_tokens', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'nk', messages: [{ role: 'user', content: 'Hello, how are you?' }] }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-token-count')).toBe('estimate');
  expect(((await response.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
  await gateway.switchyard.close();
});

it('token counting holds its body against max_request_bytes_in_flight as generation does: past the bound a large body is a 503, and each count gives its bytes back', async () => {
  const limited = await startGatewayHarness({ max_request_bytes_in_flight: 200_000 });
  try {
    const post = (path: string, body: object) =>
      fetch(`${limited.server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify(body),
      });
    const count = (text: string) =>
      post('/v1/messages/count_tokens', {
        model: 'up-anthropic',
        messages: [{ role: 'user', content: text }],
      });
    // Counted one after another, each nearly filling the bound alone: each gives its bytes back,
    // a refused one (an unknown model's 404) too.
    for (const text of ['a', 'b', 'c']) expect((await count(text.repeat(150_000))).status).toBe(200);
    const unknown = await post('/v1/messages/count_tokens', {
      model: 'no-such-model',
      messages: [{ role: 'user', content: 'd'.repeat(150_000) }],
    });
    expect(unknown.status).toBe(404);
    expect((await count('e'.repeat(150_000))).status).toBe(200);
    // A large generation request held upstream (its headers come after 1.5 s) holds 150,000 bytes.
    limited.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'First.' }],
      usage: { input: 3, output: 2 },
      fault: { delayHeadersMs: 1500 },
    });
    const first = post('/v1/chat/completions', {
      model: 'up-chat',
      messages: [{ role: 'user', content: 'x'.repeat(150_000) }],
    });
    await expect
      .poll(() => limited.emulator.requests.some((request) => request.path.endsWith('/chat/completions')))
      .toBe(true);
    const refused = await count('y'.repeat(100_000));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.text()).toMatch(/large request bodies/);
    // A small count always passes.
    expect((await count('small')).status).toBe(200);
    expect((await first).status).toBe(200);
    expect((await count('y'.repeat(100_000))).status).toBe(200);
  } finally {
    await limited.close();
  }
});
