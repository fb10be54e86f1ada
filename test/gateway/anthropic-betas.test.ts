/**
 * An Anthropic client's `anthropic-beta` header (the SDK's `betas`; Claude Code sends several)
 * reaches an Anthropic upstream merged with the operator's flags, checked: only the allowed prefixes
 * (those that change how the model answers, plus `gateway.client_betas`), no `oauth-*` flag, no
 * malformed one, at most 16. It never reaches another origin (another provider named, or a fallback
 * to one). `context-1m-*` opens the 1M window of Sonnet 4.5 in the gateway's own checks.
 */
import { anthropicError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const operatorFlag = 'operator-flag-2025-01-01';

beforeAll(async () => {
  harness = await startGatewayHarness({}, { anthropic: { betas: [operatorFlag] } });
});
afterAll(async () => {
  await harness?.close();
});

const hello = { type: 'scripted', content: [{ type: 'text', text: 'hi' }] } as const;

function messages(model: string, betas: string, content = 'hi', path = '/v1/messages') {
  return harness.post(
    path,
    { model, ...(path === '/v1/messages' ? { max_tokens: 100 } : {}), messages: [{ role: 'user', content }] },
    { 'anthropic-version': '2023-06-01', 'anthropic-beta': betas },
  );
}

const upstreamBetas = () => harness.emulator.requests.at(-1)!.headers['anthropic-beta'];

it('the client’s flags reach Claude merged with the operator’s', async () => {
  harness.emulator.enqueue({ ...hello, content: [...hello.content] });
  const response = await messages('up-anthropic', 'context-1m-2025-08-07, interleaved-thinking-2025-05-14');
  expect(response.status).toBe(200);
  expect(upstreamBetas()).toBe(`${operatorFlag},context-1m-2025-08-07,interleaved-thinking-2025-05-14`);
});

it('oauth flags, malformed flags and those past 16 are not passed on, with the WARN', async () => {
  const many = Array.from({ length: 20 }, (_, index) => `effort-${index}`);
  const before = harness.logger.entries.length;
  harness.emulator.enqueue({ ...hello, content: [...hello.content] });
  const response = await messages('up-anthropic', ['oauth-2025-04-20', 'a=b', 'x y', ...many].join(','));
  expect(response.status).toBe(200);
  expect(upstreamBetas()).toBe([operatorFlag, ...many.slice(0, 16)].join(','));
  const warning = harness.logger.entries
    .slice(before)
    .find((entry) => entry.message === 'gateway: part of the request was left out');
  expect(JSON.stringify(warning)).toContain("'oauth-2025-04-20' changes the authentication");
  expect(warning?.fields?.count).toBe(7);
});

it('files-api and code-execution flags are left out with the WARN naming gateway.client_betas', async () => {
  const before = harness.logger.entries.length;
  harness.emulator.enqueue({ ...hello, content: [...hello.content] });
  const flags = 'files-api-2025-04-14, code-execution-2025-08-25, context-1m-2025-08-07';
  const response = await messages('up-anthropic', flags);
  expect(response.status).toBe(200);
  expect(upstreamBetas()).toBe(`${operatorFlag},context-1m-2025-08-07`);
  const warning = harness.logger.entries
    .slice(before)
    .find((entry) => entry.message === 'gateway: part of the request was left out');
  const text = JSON.stringify(warning);
  expect(text).toContain("'files-api-2025-04-14' is not allowed by the gateway: gateway.client_betas");
  expect(text).toContain("'code-execution-2025-08-25' is not allowed by the gateway: gateway.client_betas");
  expect(warning?.fields?.count).toBe(2);
});

it('a prefix in the operator’s gateway.client_betas lets that flag through; the rest stay out', async () => {
  const opened = await startGatewayHarness({ client_betas: ['files-api-'] });
  try {
    opened.emulator.enqueue({ ...hello, content: [...hello.content] });
    const response = await opened.post(
      '/v1/messages',
      { model: 'up-anthropic', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] },
      { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'files-api-2025-04-14,skills-2025-10-02' },
    );
    expect(response.status).toBe(200);
    expect(opened.emulator.requests.at(-1)!.headers['anthropic-beta']).toBe('files-api-2025-04-14');
  } finally {
    await opened.close();
  }
});

it.each(['up-chat', 'up-gemini', 'up-responses'])('toward %s the header is not forwarded', async (model) => {
  harness.emulator.enqueue({ ...hello, content: [...hello.content] });
  const response = await messages(model, 'context-1m-2025-08-07,interleaved-thinking-2025-05-14');
  expect(response.status).toBe(200);
  expect(upstreamBetas()).toBeUndefined();
  expect(JSON.stringify(harness.emulator.requests.at(-1)!.body)).not.toContain('context-1m');
});

it('a fallback from Claude to another provider gets no flag', async () => {
  harness.emulator.enqueue(anthropicError(529, 'overloaded_error', 'busy'));
  harness.emulator.enqueue({ ...hello, content: [...hello.content] });
  const response = await messages('up-fallback', 'interleaved-thinking-2025-05-14');
  expect(response.status).toBe(200);
  const [primary, fallback] = harness.emulator.requests.slice(-2);
  expect(primary!.headers['anthropic-beta']).toContain('interleaved-thinking-2025-05-14');
  expect(fallback!.path).toContain('chat/completions');
  expect(fallback!.headers['anthropic-beta']).toBeUndefined();
});

// ~300k tokens: over Sonnet 4.5's 200k window by more than 1.5×, within its 1M window.
const large = 'lorem ipsum dolor sit amet '.repeat(60_000);

it('context-1m: a 300k-token prompt reaches Sonnet 4.5; without the flag it is refused locally', async () => {
  harness.emulator.enqueue({ ...hello, content: [...hello.content] });
  const count = harness.emulator.requests.length;
  const wide = await messages('up-anthropic', 'context-1m-2025-08-07', large);
  expect(wide.status).toBe(200);
  expect(harness.emulator.requests.length).toBe(count + 1);
  const narrow = await messages('up-anthropic', 'interleaved-thinking-2025-05-14', large);
  expect(narrow.status).toBe(400);
  expect(await narrow.text()).toContain('context window 200000');
  harness.emulator.clear();
});

// Past 1.5× the window (a generation refused unsent) a count is not sent upstream either: a local
// estimate; the 1M flag opens the window, so the same prompt is the provider's own count.
it('context-1m: count_tokens of a 400k-token prompt is the provider’s count with the flag, an estimate without', async () => {
  const larger = large + large.slice(0, large.length / 3);
  const count = harness.emulator.requests.length;
  const narrow = await messages(
    'up-anthropic',
    'interleaved-thinking-2025-05-14',
    larger,
    '/v1/messages/count_tokens',
  );
  expect(narrow.status).toBe(200);
  expect(narrow.headers.get('x-switchyard-token-count')).toBe('estimate');
  expect(harness.emulator.requests.length).toBe(count);
  const wide = await messages('up-anthropic', 'context-1m-2025-08-07', larger, '/v1/messages/count_tokens');
  expect(wide.status).toBe(200);
  expect(wide.headers.get('x-switchyard-token-count')).toBe('exact');
  expect(harness.emulator.requests.at(-1)?.path).toBe('/v1/messages/count_tokens');
  expect(upstreamBetas()).toContain('context-1m-2025-08-07');
  expect(((await wide.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(300_000);
});
