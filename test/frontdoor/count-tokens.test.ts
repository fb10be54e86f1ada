/**
 * `sy.countInputTokens`: the provider's own count (`exact: true`) where the model's adapter can ask
 * for one, else the local estimate (`exact: false`): on no answer within the timeout (with a WARN),
 * for an adapter without a count endpoint (no call); the caller's abort and a provider's 400 reject.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { userText } from '../../src/core/transcript.ts';
import { createSwitchyard, type Switchyard } from '../../src/switchyard.ts';
import { emulatedTokenCount } from '../../src/testing/emulator/builtin.ts';
import { anthropicError, type Emulator } from '../../src/testing/emulator/index.ts';
import { emulatorBaseURL } from '../support/provider-types.ts';
import { startEmulatedSwitchyard } from '../support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
const logger = createMemoryLogger();

beforeAll(async () => {
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    logger,
    adapters: {
      anthropic: { type: 'anthropic', max_retries: 2 },
      openai: { type: 'openai', max_retries: 2 },
    },
    apiKey: 'count-secret-key',
    config: {
      models: {
        'anthropic:claude-sonnet-4-5': { aliases: ['claude'] },
        'openai:gpt-5-mini': { aliases: ['chat'] },
      },
    },
  }));
});
afterEach(() => emulator.setCountScript(undefined));
afterAll(() => close?.());

const request = (model: string) => ({ model, transcript: [userText('Hello, how are you?')] });

it('answers the provider’s count, asked once at its count endpoint, as exact', async () => {
  const before = emulator.requests.length;
  const counted = await sy.countInputTokens(request('claude'));
  const asked = emulator.requests.slice(before);
  expect(asked.map((entry) => entry.path)).toEqual(['/v1/messages/count_tokens']);
  expect(counted).toEqual({ tokens: emulatedTokenCount(asked[0]!.body), exact: true });
});

it('no answer within timeoutMs: the local estimate, with a WARN saying so (not the key)', async () => {
  emulator.setCountScript({ type: 'json', body: { input_tokens: 1 }, fault: { delayHeadersMs: 3000 } });
  const warnings = logger.entries.length;
  const started = performance.now();
  const counted = await sy.countInputTokens(request('claude'), { timeoutMs: 100 });
  expect(performance.now() - started).toBeLessThan(2000);
  expect(counted).toEqual({ tokens: 12, exact: false });
  const warning = logger.entries.slice(warnings).find((entry) => entry.message.includes('counted'));
  expect(warning?.fields.reason).toMatch(/did not answer within 100 ms/);
  expect(JSON.stringify(logger.entries)).not.toContain('count-secret-key');
});

it('the caller’s abort rejects (cancelled) rather than answering with the estimate', async () => {
  emulator.setCountScript({ type: 'json', body: { input_tokens: 1 }, fault: { delayHeadersMs: 3000 } });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  await expect(sy.countInputTokens(request('claude'), { signal: controller.signal })).rejects.toMatchObject({
    errorClass: 'cancelled',
  });
});

it('the caller’s abort rejects (cancelled) where the estimate would answer too: nothing sent', async () => {
  const before = emulator.requests.length;
  // A model without a count endpoint, and one with: an aborted signal is never answered an estimate.
  for (const model of ['chat', 'claude'])
    await expect(sy.countInputTokens(request(model), { signal: AbortSignal.abort() })).rejects.toMatchObject({
      errorClass: 'cancelled',
    });
  expect(emulator.requests.length).toBe(before);
});

it('a provider’s 400 rejects with its classified error; a 503 answers the estimate, never retried', async () => {
  emulator.setCountScript(anthropicError(400, 'invalid_request_error', 'messages: at least one message'));
  await expect(sy.countInputTokens(request('claude'))).rejects.toMatchObject({
    errorClass: 'invalid_request',
    status: 400,
  });
  emulator.setCountScript(anthropicError(503, 'overloaded_error', 'Overloaded'));
  const before = emulator.requests.length;
  expect(await sy.countInputTokens(request('claude'))).toEqual({ tokens: 12, exact: false });
  expect(emulator.requests.length).toBe(before + 1);
});

it('a model whose adapter has no count endpoint is estimated, no call made', async () => {
  const before = emulator.requests.length;
  expect(await sy.countInputTokens(request('chat'))).toEqual({ tokens: 13, exact: false });
  expect(emulator.requests.length).toBe(before);
});

it('a request past 1.5× the model’s window is not sent: the estimate, counted only until past that bound', async () => {
  const window = sy.resolve('claude').facts.contextWindow;
  const before = emulator.requests.length;
  const counted = await sy.countInputTokens({
    model: 'claude',
    transcript: [userText('lorem '.repeat(window * 3))],
  });
  expect(counted.exact).toBe(false);
  expect(counted.tokens).toBeGreaterThan(window * 1.5);
  expect(counted.tokens).toBeLessThan(window * 1.51);
  expect(emulator.requests.length).toBe(before);
});

// A broken or hostile provider: the estimate answers, and the operator is told (adversarial pass).
it('a count reply that is no count (negative, not JSON): the local estimate, with a WARN', async () => {
  for (const script of [
    { type: 'json' as const, body: { input_tokens: -5 } },
    { type: 'json' as const, body: 'not json' },
  ]) {
    emulator.setCountScript(script);
    const warnings = logger.entries.length;
    expect(await sy.countInputTokens(request('claude'))).toMatchObject({ exact: false });
    // The memory logger keeps WARNs only: a DEBUG note would not be here.
    const warning = logger.entries.slice(warnings).find((entry) => entry.message.includes('counted'));
    expect(warning?.fields).toMatchObject({ errorClass: 'server_error' });
  }
});

it('a host without the count endpoint (404): the estimate with a WARN each time, the host asked once', async () => {
  const own = createSwitchyard({
    logger,
    config: {
      builtins: false,
      adapters: {
        anthropic: { type: 'anthropic', base_url: emulatorBaseURL('anthropic', emulator.url), api_key: 'k' },
      },
      models: { 'anthropic:claude-sonnet-4-5': { aliases: ['claude'] } },
    },
  });
  try {
    emulator.setCountScript(anthropicError(404, 'not_found_error', 'Not Found'));
    const before = emulator.requests.length;
    for (let count = 0; count < 2; count += 1) {
      const warnings = logger.entries.length;
      expect(await own.countInputTokens(request('claude'))).toEqual({ tokens: 12, exact: false });
      const warning = logger.entries.slice(warnings).find((entry) => entry.message.includes('counted'));
      expect(warning?.fields).toMatchObject({ status: 404 });
    }
    expect(logger.entries.at(-1)?.fields.reason).toMatch(/not asked again until/);
    expect(emulator.requests.length).toBe(before + 1);
  } finally {
    await own.close();
  }
});
