/**
 * An upstream's rate-limit text names the operator's account: OpenAI's organization id and its
 * organization-wide usage, Anthropic's organization UUID. A gateway's clients (every tenant) never
 * read them; the operator reads the whole text in one WARN. A token limit reaches an OpenAI client
 * with OpenAI's own `type: "tokens"`.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness, upstreams } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(() => harness.close());

const messages = [{ role: 'user' as const, content: 'Hi' }];

const openaiText =
  'Rate limit reached for gpt-5-mini in organization org-Abc123XyZ on tokens per min (TPM): Limit 200000, Used 199500, Requested 2100. Please try again in 480ms.';
const anthropicText =
  'This request would exceed the rate limit for your organization (5a1b2c3d-0000-4000-8000-abcdefabcdef) of 400,000 input tokens per minute.';

describe("the operator's account in an upstream's error text", () => {
  it('an OpenAI client reads neither the organization id nor its usage, and a token limit is `type: "tokens"`', async () => {
    harness.emulator.enqueue({
      type: 'json',
      status: 429,
      body: { error: { message: openaiText, type: 'tokens', param: null, code: 'rate_limit_exceeded' } },
    });
    const client = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const failure = await client.chat.completions
      .create({ model: upstreams['openai-chat'].alias, messages })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    const error = failure as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.message).not.toContain('org-Abc123XyZ');
    expect(error.message).not.toContain('199500');
    expect(error.message).toContain('in organization <account id> on tokens per min (TPM)');
    expect(error.message).toContain('Requested 2100');
    expect(error.type).toBe('tokens');
    // The operator sees the whole text.
    expect(harness.logger.entries.some((entry) => entry.message.includes('org-Abc123XyZ'))).toBe(true);
  });

  it('a request-count limit stays `type: "requests"`', async () => {
    harness.emulator.enqueue({
      type: 'json',
      status: 429,
      body: {
        error: {
          message: 'Rate limit reached for gpt-5-mini on requests per min (RPM): Limit 3.',
          type: 'requests',
          code: 'rate_limit_exceeded',
        },
      },
    });
    const client = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const failure = await client.chat.completions
      .create({ model: upstreams['openai-chat'].alias, messages })
      .catch((error: unknown) => error);
    expect((failure as InstanceType<typeof OpenAI.RateLimitError>).type).toBe('requests');
  });

  it('an Anthropic client does not read the organization UUID', async () => {
    harness.emulator.enqueue({
      type: 'json',
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: anthropicText } },
    });
    const client = new Anthropic({ baseURL: harness.server.url, apiKey: 'k', maxRetries: 0 });
    const failure = await client.messages
      .create({ model: upstreams['anthropic-messages'].alias, max_tokens: 10, messages })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.RateLimitError);
    const message = (failure as Error).message;
    expect(message).not.toContain('5a1b2c3d');
    expect(message).toContain('for your organization (<account id>) of 400,000 input tokens per minute');
  });
});
