/**
 * The refusal of an open circuit keeps the class of the failure that opened it, as the official
 * SDKs see it (the default policy: `failure_threshold` 3). An account out of credit: a 429
 * `insufficient_quota` with `x-should-retry: false`, so a client fails at once instead of waiting
 * the circuit's 30 s to meet the same 429 again; a model's rate limits: a 429 (`RateLimitError`)
 * with `retry-after` until the probe, not a 503 that reads as a gateway outage; a server error: the
 * retryable 503 as before.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { openaiError, protocolError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness, upstreams } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness({}, {}, {}, { failure_threshold: 3 });
});
afterAll(() => harness.close());

const hi = [{ role: 'user' as const, content: 'Hi' }];
const openai = (maxRetries: number) =>
  new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'k', maxRetries });
const anthropic = (maxRetries: number) =>
  new Anthropic({ baseURL: harness.server.url, apiKey: 'k', maxRetries });

/** An OpenAI SDK call's error, as a client's code reads it, with the gateway's replies to it. */
async function chatFailure(model: string, maxRetries = 0) {
  const before = harness.accessLog.length;
  const upstreamBefore = harness.served.length;
  const started = Date.now();
  const error = (await openai(maxRetries)
    .chat.completions.create({ model, messages: hi })
    .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return {
    name: error.constructor.name,
    status: error.status,
    code: error.code,
    shouldRetry: error.headers?.get('x-should-retry'),
    retryAfter: error.headers?.get('retry-after') ?? undefined,
    replies: harness.accessLog.slice(before).map((line) => line.status),
    upstreamCalls: harness.served.length - upstreamBefore,
    ms: Date.now() - started,
  };
}

describe('an open circuit refuses in the class of the failure that opened it', () => {
  it('an account out of credit: from the 4th call a 429 insufficient_quota not to be retried, answered at once', async () => {
    const model = upstreams['openai-chat'].alias;
    const quota = () =>
      openaiError(429, 'You exceeded your current quota, please check your plan and billing details.', {
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      });
    for (let call = 1; call <= 3; call++) {
      harness.emulator.enqueue(quota());
      expect(await chatFailure(model)).toMatchObject({
        status: 429,
        code: 'insufficient_quota',
        upstreamCalls: 1,
      });
    }
    // Before: a 503 server_error with x-should-retry: true and retry-after: 30.
    expect(await chatFailure(model)).toMatchObject({
      name: 'RateLimitError',
      status: 429,
      code: 'insufficient_quota',
      shouldRetry: 'false',
      retryAfter: undefined,
      upstreamCalls: 0,
    });
    // The SDKs' own retries on (maxRetries 2): one reply, no 30 s wait (before: 503, 30 s, then the upstream's 429).
    const sdk = await chatFailure(model, 2);
    expect(sdk).toMatchObject({ name: 'RateLimitError', status: 429, replies: [429], upstreamCalls: 0 });
    expect(sdk.ms).toBeLessThan(5_000);
    const before = harness.accessLog.length;
    const started = Date.now();
    const error = await anthropic(2)
      .messages.create({ model, max_tokens: 8, messages: hi })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(harness.accessLog.slice(before).map((line) => line.status)).toEqual([429]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a model’s rate limits: a 429 RateLimitError with retry-after until the probe, not a 503', async () => {
    const model = upstreams['anthropic-messages'].alias;
    // A retry-after of at least `long_retry_after_seconds` (60) opens the model's circuit at once.
    harness.emulator.enqueue(protocolError('anthropic-messages', 'rate_limit', { 'retry-after': '120' }));
    expect(await chatFailure(model)).toMatchObject({ status: 429, retryAfter: '120', upstreamCalls: 1 });
    // Before: a 503 ServiceUnavailableError ("… unavailable (open)") to the Anthropic SDK.
    const error = (await anthropic(0)
      .messages.create({ model, max_tokens: 8, messages: hi })
      .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.APIError>;
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.status).toBe(429);
    expect(error.message).toContain('unavailable (open: rate limited)');
    expect(error.headers?.get('x-should-retry')).toBe('true');
    expect(Number(error.headers?.get('retry-after'))).toBeGreaterThanOrEqual(118);
    expect(Number(error.headers?.get('retry-after'))).toBeLessThanOrEqual(120);
    // Before: an InternalServerError (503 server_error) to the openai SDK.
    const chat = await chatFailure(model);
    expect(chat).toMatchObject({
      name: 'RateLimitError',
      status: 429,
      shouldRetry: 'true',
      upstreamCalls: 0,
    });
    expect(Number(chat.retryAfter)).toBeGreaterThanOrEqual(118);
  });

  it('server errors: the retryable 503 with retry-after until the probe, as before', async () => {
    const model = upstreams.gemini.alias;
    for (let call = 1; call <= 3; call++) {
      harness.emulator.enqueue(protocolError('gemini', 'server_error'));
      expect(await chatFailure(model)).toMatchObject({ upstreamCalls: 1 });
    }
    const refused = await chatFailure(model);
    expect(refused).toMatchObject({
      name: 'InternalServerError',
      status: 503,
      shouldRetry: 'true',
      upstreamCalls: 0,
    });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(28);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(30);
  });
});

it('an account out of credit whose fallback a circuit keeps out: the same 429 insufficient_quota, no retry-after', async () => {
  // `oc` (openai:gpt-4.1-mini) falls back to anthropic:claude-sonnet-4-5, whose circuit 5xx opened.
  const routed = await startGatewayHarness(
    {},
    {},
    { 'openai:gpt-4.1-mini': { aliases: ['oc'], fallbacks: ['anthropic:claude-sonnet-4-5'] } },
    { failure_threshold: 2 },
  );
  try {
    const chat = async (model: string) => {
      routed.emulator.enqueue(
        openaiError(429, 'You exceeded your current quota, please check your plan and billing details.', {
          type: 'insufficient_quota',
          code: 'insufficient_quota',
        }),
      );
      const error = (await new OpenAI({
        baseURL: `${routed.server.url}/v1`,
        apiKey: 'k',
        maxRetries: 0,
      }).chat.completions
        .create({ model, messages: hi })
        .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      return {
        name: error.constructor.name,
        status: error.status,
        code: error.code,
        shouldRetry: error.headers?.get('x-should-retry'),
        retryAfter: error.headers?.get('retry-after') ?? undefined,
      };
    };
    const alone = await chat(upstreams['openai-chat'].alias);
    expect(alone).toEqual({
      name: 'RateLimitError',
      status: 429,
      code: 'insufficient_quota',
      shouldRetry: 'false',
      retryAfter: undefined,
    });
    for (let call = 1; call <= 2; call++) {
      routed.emulator.enqueue(protocolError('anthropic-messages', 'server_error'));
      await new Anthropic({ baseURL: routed.server.url, apiKey: 'k', maxRetries: 0 }).messages
        .create({ model: upstreams['anthropic-messages'].alias, max_tokens: 8, messages: hi })
        .catch(() => undefined);
    }
    expect(await routed.switchyard.availability.state('model:anthropic:claude-sonnet-4-5')).toBe('open');
    // Before: code rate_limit_exceeded, x-should-retry: false and the circuit's retry-after: 30.
    expect(await chat('oc')).toEqual(alone);
  } finally {
    await routed.close();
  }
});
