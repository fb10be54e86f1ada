/**
 * A caller's `maxOutputTokens` above the output limit of a model the router chose for it (an
 * alias's target, a fallback) is lowered to that limit with a WARN and a note in the decision,
 * never refused; above the limit of the model the caller named itself it stays the adapter's
 * refusal. On the emulator, through the front door.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { userText } from '../core/transcript.ts';
import type { Switchyard } from '../switchyard.ts';
import { anthropicError } from '../testing/emulator/index.ts';
import { routingDecision, routingDecisionOfError } from './decision.ts';
import { createEmulatedSwitchyard } from '../../test/support/emulated.ts';
import { useRoutingEmulator } from '../../test/support/routing-emulator.ts';

let sy: Switchyard;
let logger: ReturnType<typeof createMemoryLogger>;
const emulator = useRoutingEmulator(() => sy, { clear: true });

/** gpt-4o writes at most 16,384 tokens; claude-sonnet-4-5 64,000. */
function front(): Switchyard {
  logger = createMemoryLogger();
  sy = createEmulatedSwitchyard(emulator.url, {
    logger,
    adapters: { anthropic: 'anthropic', openai: 'openai' },
    apiKey: 'test-key-output-limit',
    config: {
      models: {
        'openai:gpt-4o': { aliases: ['claude-sonnet-4-5'] },
        'anthropic:claude-sonnet-4-5': { aliases: ['sonnet'], fallbacks: ['openai:gpt-4o'] },
      },
    },
  });
  return sy;
}

const text = (value: string) => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text: value }],
});
const ask = (model: string, maxOutputTokens: number) => ({
  model,
  transcript: [userText('Hi')],
  maxOutputTokens,
});
const lowered = () => logger.entries.filter((entry) => entry.message.startsWith('lowered maxOutputTokens'));

describe('a cap above the limit of a model the router chose is lowered to it', () => {
  it('an alias’s target: sent at its limit, one WARN naming both numbers, noted in the decision', async () => {
    front();
    emulator.enqueue(text('from gpt-4o'));
    const reply = await sy.complete(ask('claude-sonnet-4-5', 64_000));
    expect(reply.text).toBe('from gpt-4o');
    expect(emulator.requests.at(-1)?.body).toMatchObject({ max_completion_tokens: 16_384 });
    expect(lowered()).toEqual([
      {
        message: 'lowered maxOutputTokens to the output limit of the model routed to',
        fields: expect.objectContaining({
          requested: 'claude-sonnet-4-5',
          model: 'openai:gpt-4o',
          maxOutputTokens: 64_000,
          sent: 16_384,
        }),
      },
    ]);
    expect(routingDecision(reply)?.attempts).toEqual([
      {
        model: 'openai:gpt-4o',
        provider: 'openai',
        outcome: 'served',
        maxOutputTokens: { requested: 64_000, sent: 16_384 },
      },
    ]);
  });

  it('an alias’s target, streamed: the same cap sent', async () => {
    front();
    emulator.enqueue(text('streamed'));
    const reply = await sy.stream(ask('claude-sonnet-4-5', 64_000));
    expect(reply.text).toBe('streamed');
    expect(emulator.requests.at(-1)?.body).toMatchObject({ max_completion_tokens: 16_384 });
    expect(lowered()).toHaveLength(1);
  });

  it('a fallback after a 429: the primary gets the cap as asked, the fallback its own limit and serves', async () => {
    front();
    const from = emulator.requests.length;
    emulator.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited'));
    emulator.enqueue(text('from the fallback'));
    const reply = await sy.complete(ask('anthropic:claude-sonnet-4-5', 64_000));
    expect(reply.text).toBe('from the fallback');
    const [primary, fallback] = emulator.requests.slice(from);
    expect(primary?.body).toMatchObject({ max_tokens: 64_000 });
    expect(fallback?.body).toMatchObject({ max_completion_tokens: 16_384 });
    expect(routingDecision(reply)).toMatchObject({
      served: 'openai:gpt-4o',
      attempts: [
        { model: 'anthropic:claude-sonnet-4-5', outcome: 'failed', errorClass: 'rate_limit' },
        { model: 'openai:gpt-4o', outcome: 'served', maxOutputTokens: { requested: 64_000, sent: 16_384 } },
      ],
    });
    expect(routingDecision(reply)?.attempts[0]).not.toHaveProperty('maxOutputTokens');
  });

  it('a fallback after a 429, streamed: served by the fallback', async () => {
    front();
    const from = emulator.requests.length;
    emulator.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited'));
    emulator.enqueue(text('streamed fallback'));
    const reply = await sy.stream(ask('sonnet', 64_000));
    expect(reply.text).toBe('streamed fallback');
    expect(emulator.requests.slice(from).map((request) => request.protocol)).toEqual([
      'anthropic-messages',
      'openai-chat',
    ]);
    expect(emulator.requests.at(-1)?.body).toMatchObject({ max_completion_tokens: 16_384 });
  });

  it('a cap within the limit is sent as it is, without a WARN or a note', async () => {
    front();
    emulator.enqueue(text('ok'));
    const reply = await sy.complete(ask('claude-sonnet-4-5', 1_000));
    expect(emulator.requests.at(-1)?.body).toMatchObject({ max_completion_tokens: 1_000 });
    expect(lowered()).toEqual([]);
    expect(routingDecision(reply)?.attempts[0]).not.toHaveProperty('maxOutputTokens');
  });
});

describe('a cap above the limit of the model the caller named stays a refusal', () => {
  it('named by its id: max_output_tokens_exceeded, nothing sent', async () => {
    front();
    const from = emulator.requests.length;
    const error = await sy.complete(ask('openai:gpt-4o', 64_000)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      providerCode: 'max_output_tokens_exceeded',
      message: expect.stringContaining('takes at most 16384 output tokens, got maxOutputTokens 64000'),
    });
    expect(emulator.requests.length).toBe(from);
    expect(routingDecisionOfError(error)?.attempts).toMatchObject([
      { model: 'openai:gpt-4o', outcome: 'failed', errorClass: 'invalid_request' },
    ]);
    expect(lowered()).toEqual([]);
  });
});
