/**
 * An Anthropic client must send `max_tokens` (the AI SDK sends 64,000 for claude-sonnet-4-5, Claude
 * Code 32,000). Through an alias or a fallback that lands on a model with a smaller output limit
 * (gpt-4o: 16,384) the gateway sends that limit with a WARN; before, the call was a 400, and in a
 * fallback chain the fallback's refusal ended the route after the primary's 429. A model the client
 * names itself in another protocol is treated alike (its cap was sized for its own vendor's models);
 * in its own protocol the provider's refusal stands.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicError, openaiError } from '../../src/testing/emulator/index.ts';
import { keyDigest } from '../support/gateway-processes.ts';
import { createClients, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
let client: Anthropic;

beforeAll(async () => {
  const keys = [
    { name: 'client', key: keyDigest('client-key') },
    { name: 'tokens', key: keyDigest('key-tokens'), limits: { tokens_per_minute: 20_000 } },
  ];
  harness = await startGatewayHarness(
    { keys },
    {},
    {
      'openai:gpt-4o': { aliases: ['claude-sonnet-4-5'] },
      'anthropic:claude-sonnet-4-5-20250929': { aliases: ['sonnet-or-4o'], fallbacks: ['openai:gpt-4o'] },
    },
  );
  client = createClients(harness.server.url).anthropic;
});
beforeEach(() => {
  harness.emulator.clear();
  harness.logger.entries.length = 0;
});
afterAll(async () => {
  await harness?.close();
});

const ask = (model: string, maxTokens = 64_000) => ({
  model,
  max_tokens: maxTokens,
  messages: [{ role: 'user' as const, content: 'Hi' }],
});
/** An explicit timeout: without one the SDK refuses a non-streamed call with a large max_tokens. */
const create = (body: ReturnType<typeof ask>) => client.messages.create(body, { timeout: 30_000 });
const textOf = (message: Anthropic.Message) =>
  message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
const lowered = () =>
  harness.logger.entries.filter((entry) => entry.message.startsWith('lowered maxOutputTokens'));

describe('an Anthropic client’s max_tokens above the limit of the model it is routed to', () => {
  it('an alias to gpt-4o: answered, gpt-4o sent its limit of 16,384, one WARN naming both numbers', async () => {
    harness.emulator.enqueue(scriptedText('from gpt-4o'));
    const message = await create(ask('claude-sonnet-4-5'));
    expect(textOf(message)).toBe('from gpt-4o');
    expect(harness.emulator.requests.at(-1)).toMatchObject({
      protocol: 'openai-chat',
      body: { model: 'gpt-4o', max_completion_tokens: 16_384 },
    });
    expect(lowered()).toEqual([
      {
        message: 'lowered maxOutputTokens to the output limit of the model routed to',
        fields: expect.objectContaining({ model: 'openai:gpt-4o', maxOutputTokens: 64_000, sent: 16_384 }),
      },
    ]);
  });

  it('an alias to gpt-4o, streamed: the same', async () => {
    harness.emulator.enqueue(scriptedText('streamed'));
    const message = await client.messages.stream(ask('claude-sonnet-4-5', 32_000)).finalMessage();
    expect(textOf(message)).toBe('streamed');
    expect(harness.emulator.requests.at(-1)?.body).toMatchObject({ max_completion_tokens: 16_384 });
  });

  it('the primary answers 429: the fallback gpt-4o is sent its limit and its answer reaches the client', async () => {
    const from = harness.emulator.requests.length;
    harness.emulator.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited'));
    harness.emulator.enqueue(scriptedText('from the fallback'));
    const message = await create(ask('sonnet-or-4o'));
    expect(textOf(message)).toBe('from the fallback');
    const [primary, fallback] = harness.emulator.requests.slice(from);
    expect(primary).toMatchObject({ protocol: 'anthropic-messages', body: { max_tokens: 64_000 } });
    expect(fallback).toMatchObject({ protocol: 'openai-chat', body: { max_completion_tokens: 16_384 } });
    expect(harness.accessLog.at(-1)).toMatchObject({ status: 200, provider: 'openai' });
  });

  it('the primary answers 429, streamed: the fallback’s answer reaches the client', async () => {
    harness.emulator.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited'));
    harness.emulator.enqueue(scriptedText('streamed fallback'));
    const message = await client.messages.stream(ask('sonnet-or-4o')).finalMessage();
    expect(textOf(message)).toBe('streamed fallback');
    expect(harness.emulator.requests.at(-1)?.body).toMatchObject({ max_completion_tokens: 16_384 });
  });

  it('the fallback’s own failure after the primary’s 429 still reaches the client as its class', async () => {
    harness.emulator.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited'));
    harness.emulator.enqueue(openaiError(500, 'Upstream broke'));
    const error = await create(ask('sonnet-or-4o')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
  });
});

describe('max_tokens above the limit of the model the client named itself', () => {
  it('in another protocol (Claude Code at openai:gpt-4o): gpt-4o is sent its limit, with the WARN', async () => {
    harness.emulator.enqueue(scriptedText('named gpt-4o'));
    const message = await create(ask('openai:gpt-4o'));
    expect(textOf(message)).toBe('named gpt-4o');
    expect(harness.emulator.requests.at(-1)).toMatchObject({
      protocol: 'openai-chat',
      body: { model: 'gpt-4o', max_completion_tokens: 16_384 },
    });
    expect(lowered()).toEqual([
      {
        message: 'lowered maxOutputTokens to the output limit of the model routed to',
        fields: expect.objectContaining({ model: 'openai:gpt-4o', maxOutputTokens: 64_000, sent: 16_384 }),
      },
    ]);
  });

  it('in another protocol, streamed: the same', async () => {
    harness.emulator.enqueue(scriptedText('streamed, named'));
    const message = await client.messages.stream(ask('openai:gpt-4o', 32_000)).finalMessage();
    expect(textOf(message)).toBe('streamed, named');
    expect(harness.emulator.requests.at(-1)?.body).toMatchObject({ max_completion_tokens: 16_384 });
  });

  it('in its own protocol: stays a 400 naming the client’s field and both numbers, and nothing is sent', async () => {
    const from = harness.emulator.requests.length;
    const error = await create(ask('anthropic:claude-sonnet-4-5-20250929', 100_000)).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error).toMatchObject({
      status: 400,
      error: {
        error: {
          type: 'invalid_request_error',
          message: expect.stringMatching(
            /^anthropic: model claude-sonnet-4-5-20250929 takes at most \d+ output tokens, got max_tokens 100000$/,
          ),
        },
      },
    });
    expect(harness.emulator.requests.length).toBe(from);
    expect(lowered()).toEqual([]);
  });

  it('an OpenAI Chat client naming gpt-4o: stays the 400 under its own field', async () => {
    const from = harness.emulator.requests.length;
    const { openai } = createClients(harness.server.url);
    const error = await openai.chat.completions
      .create({
        model: 'openai:gpt-4o',
        max_completion_tokens: 64_000,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      status: 400,
      error: {
        message: 'openai: model gpt-4o takes at most 16384 output tokens, got max_completion_tokens 64000',
      },
    });
    expect(harness.emulator.requests.length).toBe(from);
  });
});

describe('a key’s tokens per minute reserve the output the serving model can be sent', () => {
  it('64,000 asked through an alias to gpt-4o holds 16,384 while in flight: a second call fits a 20,000-token key', async () => {
    const limited = createClients(harness.server.url, 'key-tokens').anthropic;
    // The first call streams slowly: its reservation is held until it settles.
    harness.emulator.enqueue({ ...scriptedText('slow answer'), chunkSize: 2, fault: { dripMs: 30 } });
    const first = limited.messages.stream(ask('claude-sonnet-4-5'));
    await new Promise<void>((resolve) => first.once('text', () => resolve()));
    harness.emulator.enqueue(scriptedText('second'));
    const second = await limited.messages.create(ask('claude-sonnet-4-5', 1_000), { timeout: 30_000 });
    expect(textOf(second)).toBe('second');
    expect(textOf(await first.finalMessage())).toBe('slow answer');
  });
});
