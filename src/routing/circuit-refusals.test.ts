/**
 * When circuits keep every candidate out, the error keeps the class of the failure that opened the
 * circuit told of: an account out of credit a `rate_limit` 429 not to be retried, a model's rate
 * limit a retryable 429 with the seconds until its probe, a server-side failure the retryable 503.
 * Of several candidates kept out, a retryable cause comes before an account out of credit, then
 * the soonest to let a probe through.
 */
import { describe, expect, it } from 'vitest';
import { userText } from '../core/transcript.ts';
import type { Switchyard } from '../switchyard.ts';
import { anthropicError, openaiError } from '../testing/emulator/index.ts';
import { routingDecisionOfError } from './decision.ts';
import { createEmulatedSwitchyard } from '../../test/support/emulated.ts';
import { useRoutingEmulator } from '../../test/support/routing-emulator.ts';

let sy: Switchyard;
let now = 0;
const emulator = useRoutingEmulator(() => sy);

/** `primary` (Anthropic) falling back to `openai:gpt-4.1-mini`; every circuit opens at its first failure. */
function front(): void {
  now = 7_000_000;
  sy = createEmulatedSwitchyard(emulator.url, {
    now: () => now,
    adapters: { anthropic: 'anthropic', openai: 'openai' },
    apiKey: 'test-key-routing',
    config: {
      models: {
        'anthropic:claude-sonnet-4-5': { aliases: ['primary'], fallbacks: ['openai:gpt-4.1-mini'] },
        'openai:gpt-4.1-mini': {},
      },
      routing: { failure_threshold: 1, cooldown_seconds: 30 },
    },
  });
}

const hello = { model: 'primary', transcript: [userText('Hello')] };
const mini = { model: 'openai:gpt-4.1-mini', transcript: [userText('Hello')] };
const outOfCredit = () =>
  openaiError(429, 'You exceeded your current quota.', {
    type: 'insufficient_quota',
    code: 'insufficient_quota',
  });

describe('the refusal of open circuits keeps the class of what opened them', () => {
  it('an account out of credit: a 429 insufficient_quota, not retryable, no retry-after, no upstream call', async () => {
    front();
    emulator.enqueue(outOfCredit());
    await sy.complete(mini).catch(() => undefined);
    expect(await sy.availability.state('provider:openai')).toBe('open');
    now += 5_000;
    const from = emulator.requests.length;
    const error = await sy.complete(mini).catch((caught: unknown) => caught);
    // Before: a server_error 503, retryable, retryAfterSeconds 25.
    expect(error).toMatchObject({
      errorClass: 'rate_limit',
      providerCode: 'insufficient_quota',
      status: 429,
      retryable: false,
    });
    expect((error as { retryAfterSeconds?: number }).retryAfterSeconds).toBeUndefined();
    expect(routingDecisionOfError(error)?.attempts).toEqual([
      {
        model: 'openai:gpt-4.1-mini',
        provider: 'openai',
        outcome: 'skipped',
        reason: 'unavailable (open: out of credit)',
      },
    ]);
    expect(emulator.requests.length).toBe(from);
  });

  it('one candidate out of credit, one kept out by a server error: the retryable 503 of the latter', async () => {
    front();
    emulator.enqueue(outOfCredit());
    await sy.complete(mini).catch(() => undefined);
    now += 10_000;
    // The primary's overload opens its circuit; the fallback is kept out (out of credit).
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    await sy.complete(hello).catch(() => undefined);
    const error = await sy.complete(hello).catch((caught: unknown) => caught);
    // Not the out-of-credit 429, though that circuit lets its probe through 10 s sooner.
    expect(error).toMatchObject({
      errorClass: 'server_error',
      providerCode: 'all_candidates_unavailable',
      status: 503,
      retryable: true,
      retryAfterSeconds: 30,
    });
    expect(routingDecisionOfError(error)?.attempts.map((attempt) => attempt.reason)).toEqual([
      'unavailable (open)',
      'unavailable (open: out of credit)',
    ]);
  });

  it('a model rate-limited and a provider kept out by a server error: the soonest, a 429 with its retry-after', async () => {
    front();
    emulator.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited', { 'retry-after': '10' }));
    emulator.enqueue(openaiError(500, 'down'));
    await sy.complete(hello).catch(() => undefined);
    now += 2_000;
    const from = emulator.requests.length;
    const error = await sy.complete(hello).catch((caught: unknown) => caught);
    // Before: a server_error 503 with retryAfterSeconds 8.
    expect(error).toMatchObject({
      errorClass: 'rate_limit',
      providerCode: 'all_candidates_unavailable',
      status: 429,
      retryable: true,
      retryAfterSeconds: 8,
    });
    expect(routingDecisionOfError(error)?.attempts.map((attempt) => attempt.reason)).toEqual([
      'unavailable (open: rate limited)',
      'unavailable (open)',
    ]);
    expect(emulator.requests.length).toBe(from);
    // Once the model's circuit lets its probe through, the server error's circuit is the one told of.
    now += 8_000;
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    await sy.complete(hello).catch(() => undefined);
    expect(await sy.complete(hello).catch((caught: unknown) => caught)).toMatchObject({
      errorClass: 'server_error',
      status: 503,
      retryAfterSeconds: 20,
    });
  });

  it('the half-open probe’s own failure names the cause: a probe out of credit reopens it as out of credit', async () => {
    front();
    emulator.enqueue(openaiError(500, 'down'));
    await sy.complete(mini).catch(() => undefined);
    expect(await sy.availability.state('provider:openai')).toBe('open');
    now += 30_000;
    // The probe (the router passes its id with the failure) finds the account out of credit.
    emulator.enqueue(outOfCredit());
    await sy.complete(mini).catch(() => undefined);
    const from = emulator.requests.length;
    const error = await sy.complete(mini).catch((caught: unknown) => caught);
    // Without the probe's id its failure would count as a leftover call's: the 503 of the 500.
    expect(error).toMatchObject({ errorClass: 'rate_limit', status: 429, retryable: false });
    expect(routingDecisionOfError(error)?.attempts.map((attempt) => attempt.reason)).toEqual([
      'unavailable (open: out of credit)',
    ]);
    expect(emulator.requests.length).toBe(from);
  });
});
