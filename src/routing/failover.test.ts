/**
 * Failover timing and the circuit breaker under load, on the emulator (issue #18, points 6 and 7):
 * long `retry-after` and hung primaries fail over at once, an open circuit stops the retries already
 * scheduled against it, and a half-open probe that proves nothing frees its slot at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { userText } from '../core/transcript.ts';
import type { CallEvent } from '../observers/types.ts';
import type { SwitchyardConfig } from '../registry/config.ts';
import { routedFirstByteTimeout, routedFirstByteTimeoutMs } from '../registry/registry.ts';
import { createSwitchyard, type Switchyard } from '../switchyard.ts';
import { anthropicError, type Emulator, startEmulator } from '../testing/emulator/index.ts';
import { routingDecision } from './decision.ts';
import { emulatedAdapters } from '../../test/support/emulated.ts';

let primary: Emulator;
let fallback: Emulator;
let sy: Switchyard;
let now = 1_000_000;
let events: CallEvent[] = [];

beforeAll(async () => {
  [primary, fallback] = await Promise.all([startEmulator(), startEmulator()]);
});
afterAll(async () => {
  await Promise.all([primary.close(), fallback.close()]);
});
afterEach(async () => {
  await sy?.close();
  primary.setDefault(undefined);
  fallback.setDefault(undefined);
});

const text = (value: string, fault?: { dripMs: number }) => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text: value }],
  chunkSize: 2,
  ...(fault === undefined ? {} : { fault }),
});

/**
 * A front door whose primary (Anthropic, on `primary`) falls back to OpenAI (on `fallback`). The
 * backoff before a retry is 60 s unless a test shortens it: a test that waited on one would time out.
 */
function front(
  anthropic: Record<string, unknown> = {},
  routing: SwitchyardConfig['routing'] = {},
  fallbacks = ['openai:gpt-4.1-mini'],
): Switchyard {
  events = [];
  sy = createSwitchyard({
    logger: createMemoryLogger(),
    now: () => now,
    observers: [{ onEvent: (event) => void events.push(event) }],
    config: {
      builtins: false,
      adapters: {
        ...emulatedAdapters(
          primary.url,
          {
            anthropic: {
              type: 'anthropic',
              max_retries: 2,
              options: { retryBaseDelay: 60_000 },
              ...anthropic,
            },
          },
          'test-key-failover',
        ),
        ...emulatedAdapters(fallback.url, { openai: 'openai' }, 'test-key-failover'),
      },
      models: { 'anthropic:claude-sonnet-4-5': { aliases: ['primary'], fallbacks } },
      routing: { failure_threshold: 3, cooldown_seconds: 30, ...routing },
    },
  });
  return sy;
}

const hello = { model: 'primary', transcript: [userText('Hello')] };
const modelKey = 'model:anthropic:claude-sonnet-4-5';
const retried = () => events.filter((event) => event.type === 'call-retried');

describe('failover timing (#18.6)', () => {
  it('a 429 with retry-after: 3600 on the primary fails over at once: no wait, no retry, circuit open (capped at 1 hour)', async () => {
    front();
    const sent = primary.requests.length;
    primary.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited', { 'retry-after': '3600' }));
    fallback.enqueue(text('from the fallback'));
    const started = performance.now();
    const reply = await sy.complete(hello);
    const elapsed = performance.now() - started;
    expect(reply.text).toBe('from the fallback');
    expect(primary.requests.length - sent).toBe(1);
    expect(retried()).toEqual([]);
    expect(routingDecision(reply)?.attempts[0]).toMatchObject({
      outcome: 'failed',
      errorClass: 'rate_limit',
    });
    // Before: the adapter waited its 60 s cap twice (120 s) before the fallback was tried.
    expect(elapsed).toBeLessThan(10_000);
    expect(await sy.availability.check(modelKey)).toEqual({
      allowed: false,
      state: 'open',
      cause: 'rate_limit',
      until: now + 3_600_000,
    });
  });

  it('one model’s long retry-after opens that model’s circuit, not the provider’s: its other models still go', async () => {
    front();
    primary.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited', { 'retry-after': '3600' }));
    fallback.enqueue(text('from the fallback'));
    await sy.complete(hello);
    expect(await sy.availability.check(modelKey)).toMatchObject({ allowed: false, state: 'open' });
    expect(await sy.availability.check('provider:anthropic')).toMatchObject({ allowed: true });
    primary.enqueue(text('haiku answers'));
    const reply = await sy.complete({ model: 'anthropic:claude-haiku-4-5', transcript: [userText('Hi')] });
    expect(reply.text).toBe('haiku answers');
  });

  it('one model’s rate limits with a short retry-after open its circuit for that long, never the provider’s', async () => {
    front({ max_retries: 0 }, {}, []);
    for (let count = 0; count < 3; count++) {
      primary.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited', { 'retry-after': '2' }));
      await sy.complete(hello).catch(() => undefined);
    }
    expect(await sy.availability.check(modelKey)).toEqual({
      allowed: false,
      state: 'open',
      cause: 'rate_limit',
      until: now + 2_000,
    });
    // Before: the provider's circuit opened too (every model of the provider, for every caller), and
    // both stayed open for the 30 s cooldown.
    expect(await sy.availability.state('provider:anthropic')).toBe('closed');
    primary.enqueue(text('haiku answers'));
    const haiku = await sy.complete({ model: 'anthropic:claude-haiku-4-5', transcript: [userText('Hi')] });
    expect(haiku.text).toBe('haiku answers');
    now += 2_000;
    primary.enqueue(text('probe after the retry-after'));
    expect((await sy.complete(hello)).text).toBe('probe after the retry-after');
  });

  it('server errors still count toward the provider’s circuit', async () => {
    front({ max_retries: 0 }, {}, []);
    for (let count = 0; count < 3; count++) {
      primary.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
      await sy.complete(hello).catch(() => undefined);
    }
    expect(await sy.availability.state('provider:anthropic')).toBe('open');
  });

  it('a half-open probe answered by a rate limit frees the provider’s probe slot: its other models go at once', async () => {
    front({ max_retries: 0 }, {}, []);
    for (let count = 0; count < 3; count++) {
      primary.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
      await sy.complete(hello).catch(() => undefined);
    }
    now += 30_000;
    primary.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited', { 'retry-after': '2' }));
    await sy.complete(hello).catch(() => undefined);
    expect(await sy.availability.check(modelKey)).toMatchObject({ allowed: false, until: now + 2_000 });
    primary.enqueue(text('haiku answers'));
    const haiku = await sy.complete({ model: 'anthropic:claude-haiku-4-5', transcript: [userText('Hi')] });
    expect(haiku.text).toBe('haiku answers');
  });

  it('a retry-after beyond any sane bound opens the circuit for the 1-hour cap, not for ever', async () => {
    front();
    primary.enqueue(
      anthropicError(429, 'rate_limit_error', 'Rate limited', { 'retry-after': '99999999999' }),
    );
    fallback.enqueue(text('served'));
    await sy.complete(hello);
    expect(await sy.availability.check(modelKey)).toMatchObject({ until: now + 3_600_000 });
    now += 3_600_000;
    primary.enqueue(text('probe after the cap'));
    expect((await sy.complete(hello)).text).toBe('probe after the cap');
  });

  it('a hung primary fails over when the first-byte timeout fires, without retrying the hang', async () => {
    front({ first_byte_timeout_seconds: 0.2 });
    const sent = primary.requests.length;
    primary.enqueue({ ...text('too late'), fault: { delayHeadersMs: 30_000 } });
    fallback.enqueue(text('from the fallback'));
    const reply = await sy.complete(hello);
    expect(reply.text).toBe('from the fallback');
    expect(primary.requests.length - sent).toBe(1);
    expect(retried()).toEqual([]);
    expect(routingDecision(reply)?.attempts[0]).toMatchObject({ outcome: 'failed', errorClass: 'network' });
    expect(routingDecision(reply)?.attempts[0]?.reason).toMatch(/first.byte/i);
  });

  it('a hung primary stream fails over the same way (before its first event)', async () => {
    front({ first_byte_timeout_seconds: 0.2 });
    primary.enqueue({ ...text('too late'), fault: { delayHeadersMs: 30_000 } });
    fallback.enqueue(text('streamed fallback'));
    const reply = await sy.stream(hello);
    expect(reply.text).toBe('streamed fallback');
    expect(retried()).toEqual([]);
  });

  it('routed adapters default to a first-byte timeout of 30 s (configurable per adapter)', () => {
    expect(routedFirstByteTimeoutMs).toBe(30_000);
    expect(routedFirstByteTimeout({})).toBe(30_000);
    expect(routedFirstByteTimeout({ first_byte_timeout_seconds: 5 })).toBe(5_000);
    expect(routedFirstByteTimeout({ options: { firstByteTimeout: 7_000 } })).toBe(7_000);
  });

  it('without a fallback, a short retry-after is still honoured by a retry', async () => {
    front({ options: { retryBaseDelay: 1 } }, {}, []);
    primary.enqueue(anthropicError(429, 'rate_limit_error', 'Rate limited', { 'retry-after': '0' }));
    primary.enqueue(text('after one retry'));
    expect((await sy.complete(hello)).text).toBe('after one retry');
    expect(retried()).toHaveLength(1);
  });
});

describe('the circuit breaker under load (#18.7)', () => {
  it('an open circuit stops the retries already scheduled: 20 concurrent failing calls send 20 primary requests, not 60', async () => {
    front();
    primary.setDefault(anthropicError(500, 'api_error', 'Internal error'));
    fallback.setDefault(text('fallback'));
    const sent = primary.requests.length;
    // Each failed call schedules a retry 30–60 s away: the test only ends in time if the circuit
    // opening wakes and stops them.
    const replies = await Promise.all(Array.from({ length: 20 }, () => sy.complete(hello)));
    expect(replies.every((reply) => reply.text === 'fallback')).toBe(true);
    expect(primary.requests.length - sent).toBe(20);
    expect(await sy.availability.state(modelKey)).toBe('open');
  });

  it('a probe is one request: a failing half-open probe is not retried', async () => {
    front({}, { failure_threshold: 1 });
    primary.enqueue(anthropicError(500, 'api_error', 'Internal error'));
    fallback.setDefault(text('fallback'));
    await sy.complete(hello);
    now += 30_000;
    const sent = primary.requests.length;
    primary.enqueue(anthropicError(500, 'api_error', 'Internal error'));
    expect((await sy.complete(hello)).text).toBe('fallback');
    expect(primary.requests.length - sent).toBe(1);
    expect(await sy.availability.state(modelKey)).toBe('open');
  });

  it('a half-open probe ending in a 4xx frees the slot at once: the next call probes again', async () => {
    front({}, { failure_threshold: 1 });
    primary.enqueue(anthropicError(500, 'api_error', 'Internal error'));
    fallback.setDefault(text('fallback'));
    await sy.complete(hello);
    now += 30_000;
    primary.enqueue(anthropicError(400, 'invalid_request_error', 'messages: bad'));
    await expect(sy.complete(hello)).rejects.toMatchObject({ errorClass: 'invalid_request' });
    primary.enqueue(text('second probe'));
    const reply = await sy.complete(hello);
    expect(reply.text).toBe('second probe');
    expect(await sy.availability.state(modelKey)).toBe('closed');
  });

  it('a cancelled half-open probe frees the slot at once and closes nothing', async () => {
    front({}, { failure_threshold: 1 });
    primary.enqueue(anthropicError(500, 'api_error', 'Internal error'));
    fallback.setDefault(text('fallback'));
    await sy.complete(hello);
    now += 30_000;
    primary.enqueue(text('a long answer the reader stops', { dripMs: 20 }));
    const turn = sy.stream(hello);
    for await (const event of turn) if (event.type === 'text-delta') break;
    await Promise.resolve(turn).catch(() => undefined);
    expect(await sy.availability.state(modelKey)).toBe('open');
    primary.enqueue(text('second probe'));
    expect((await sy.complete(hello)).text).toBe('second probe');
  });

  it('a cancelled ordinary call does not count as a success (failures are kept)', async () => {
    front({ max_retries: 0 });
    primary.enqueue(anthropicError(500, 'api_error', 'Internal error'));
    primary.enqueue(text('answer', { dripMs: 20 }));
    fallback.setDefault(text('fallback'));
    await sy.complete(hello);
    expect(await sy.availability.store.get(modelKey)).toMatchObject({ failures: 1 });
    const turn = sy.stream(hello);
    for await (const event of turn) if (event.type === 'text-delta') break;
    await Promise.resolve(turn).catch(() => undefined);
    expect(await sy.availability.store.get(modelKey)).toMatchObject({ state: 'closed', failures: 1 });
  });
});
