import { describe, expect, it } from 'vitest';
import { codecs } from '../codecs/index.ts';
import { userText } from '../core/transcript.ts';
import { defaultPriceTable } from '../pricing/price-table.ts';
import { createMemoryStateStore } from '../state/memory.ts';
import { StateUnavailableError } from '../state/outage.ts';
import type { StateStore } from '../state/types.ts';
import { admitCall, keyUsage, QuotaError, settleCall } from './quota.ts';

const prices = defaultPriceTable();
const call = {
  request: { transcript: [userText('Hello')], maxOutputTokens: 100 },
  modelId: 'anthropic:claude-sonnet-4-5',
};

async function refusal(promise: Promise<unknown>): Promise<QuotaError> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(QuotaError);
  return error as QuotaError;
}

describe('gateway quota', () => {
  it('over the requests-per-minute limit: 429 with retry-after, in every client protocol’s error shape', async () => {
    const store = createMemoryStateStore();
    const key = { name: 'team-a', limits: { requestsPerMinute: 1 } };
    await admitCall(store, key, call, prices);
    const error = await refusal(admitCall(store, key, call, prices));
    expect(error.wire).toMatchObject({ status: 429, errorClass: 'rate_limit', retryAfterSeconds: 60 });
    for (const codec of Object.values(codecs)) {
      const encoded = codec.encodeError(error.wire);
      expect(encoded.status).toBe(429);
      expect(encoded.headers['retry-after']).toBe('60');
    }
    expect(codecs['openai-chat'].encodeError(error.wire).body).toMatchObject({
      error: { code: 'rate_limit_exceeded' },
    });
    expect(codecs['anthropic-messages'].encodeError(error.wire).body).toMatchObject({
      error: { type: 'rate_limit_error' },
    });
  });

  it('the reservation is priced on the dearest model the call may reach, its fallbacks included', async () => {
    const store = createMemoryStateStore();
    const key = { name: 'team-f', budget: { usdPerDay: 100 } };
    const cheap = { ...call, modelId: 'openai:gpt-4.1-mini' };
    const alone = await admitCall(store, key, cheap, prices);
    const withDearFallback = await admitCall(
      store,
      key,
      { ...cheap, fallbackIds: ['anthropic:claude-opus-4-1'] },
      prices,
    );
    const dear = await admitCall(store, key, { ...call, modelId: 'anthropic:claude-opus-4-1' }, prices);
    expect(withDearFallback.reserveMicros).toBeGreaterThan(alone.reserveMicros);
    expect(withDearFallback.reserveMicros).toBe(dear.reserveMicros);
  });

  it('at its budget: a non-retryable 402 budget_exceeded before dispatch; usage shows spend and remaining', async () => {
    const store = createMemoryStateStore();
    const key = { name: 'team-b', budget: { usdPerDay: 0.01 } };
    const reservation = await admitCall(store, key, call, prices);
    expect(reservation.reserveMicros).toBeGreaterThan(0);
    const usage = { input: 10, cacheRead: 0, cacheWrite: 0, output: 10, reasoning: 0 };
    await settleCall(store, reservation, { ...usage, cost: { amount: 0.012, currency: 'USD' } });
    const error = await refusal(admitCall(store, key, call, prices));
    expect(error.wire).toMatchObject({ status: 402, errorClass: 'invalid_request', code: 'budget_exceeded' });
    expect(error.wire.retryAfterSeconds).toBeUndefined();
    expect(codecs['openai-chat'].encodeError(error.wire)).toMatchObject({
      status: 402,
      body: { error: { code: 'budget_exceeded' } },
    });
    expect(await keyUsage(store, key)).toMatchObject({
      key: 'team-b',
      day: { spent_usd: 0.012, spent_micros: 12_000, reserved_micros: 0, limit_usd: 0.01, remaining_usd: 0 },
    });
  });

  it('billed tokens without a cost are charged the reservation, never $0 against a budget', async () => {
    const store = createMemoryStateStore();
    const key = { name: 'team-c', budget: { usdPerDay: 1 } };
    const reservation = await admitCall(store, key, call, prices);
    // A reply without a cost (cache writes its model's price lacks, say).
    await settleCall(store, reservation, {
      input: 10,
      cacheRead: 0,
      cacheWrite: 10,
      output: 10,
      reasoning: 0,
    });
    expect(await keyUsage(store, key)).toMatchObject({
      day: { spent_micros: reservation.reserveMicros, reserved_micros: 0 },
    });
  });

  it('with a budget, an unpriced model is refused (403 model_not_priced) and an unpriced fallback is not reserved for', async () => {
    const store = createMemoryStateStore();
    const key = { name: 'team-d', budget: { usdPerDay: 1 } };
    const error = await refusal(admitCall(store, key, { ...call, modelId: 'openai:gpt-unknown' }, prices));
    expect(error.wire).toMatchObject({ status: 403, code: 'model_not_priced' });
    const alone = await admitCall(store, key, call, prices);
    const withUnpriced = await admitCall(
      store,
      key,
      { ...call, fallbackIds: ['openai:gpt-unknown'] },
      prices,
    );
    expect(withUnpriced.reserveMicros).toBe(alone.reserveMicros);
    // A config entry's own price counts: reserved at it.
    const own = await admitCall(
      store,
      key,
      {
        ...call,
        modelId: 'openai:gpt-unknown',
        pricing: { 'openai:gpt-unknown': { input_mtok: 1000, output_mtok: 1000 } },
      },
      prices,
    );
    expect(own.reserveMicros).toBeGreaterThan(alone.reserveMicros);
    // Without a budget nothing is priced or refused.
    await admitCall(
      store,
      { name: 'team-e', limits: { requestsPerMinute: 5 } },
      { ...call, modelId: 'openai:gpt-unknown' },
      prices,
    );
  });

  it('shared state down with policy closed: 503 state_unavailable', async () => {
    const store = {
      ...createMemoryStateStore(),
      admit: () => Promise.reject(new StateUnavailableError('admit')),
    } as StateStore;
    const error = await refusal(
      admitCall(store, { name: 'k', limits: { requestsPerMinute: 5 } }, call, prices),
    );
    expect(error.wire).toMatchObject({ status: 503, code: 'state_unavailable' });
  });
});

it('a settle counts every token billed, those of a model failure failed over from (usage.byModel) too', async () => {
  const settled: Array<{ tokens: number; costMicros: number }> = [];
  const store = {
    settle: async (_reservation: unknown, used: { tokens: number; costMicros: number }) =>
      void settled.push(used),
  };
  const usage = {
    input: 10,
    cacheRead: 0,
    cacheWrite: 0,
    output: 2,
    reasoning: 0,
    byModel: {
      'gemini:gemini-2.5-pro': { input: 100_000, cacheRead: 0, cacheWrite: 0, output: 5, reasoning: 0 },
    },
    cost: { amount: 0.135, currency: 'USD' },
  };
  await settleCall(store as never, { key: 'k' } as never, usage);
  expect(settled).toEqual([{ tokens: 100_017, costMicros: 135_000 }]);
});

// A broken or hostile upstream's usage (2^53 tokens, a cost to match) must not push a key's ledger
// past exact integers or Redis's 64-bit counters.
it('settleCall charges at most a million dollars and 10^12 tokens for one call', async () => {
  const settled: unknown[] = [];
  const store = { settle: async (_: unknown, charge: unknown) => void settled.push(charge) };
  const usage = {
    input: Number.MAX_SAFE_INTEGER,
    cacheRead: 0,
    cacheWrite: 0,
    output: 0,
    reasoning: 0,
    cost: { amount: 9e13, currency: 'USD' },
  };
  await settleCall(store as never, { key: 'k' } as never, usage);
  expect(settled).toEqual([{ tokens: 1e12, costMicros: 1e12 }]);
});
