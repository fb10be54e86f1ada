/**
 * Quota admission walks a body only as far as admission can tell bounds apart (`inputBound` in
 * quota.ts): the walk stops past the tokens-per-minute capacity or past the input whose reservation
 * reaches the budget, so the rest of a large body is neither measured nor written out as JSON.
 * Observed by counting the JSON values written out (`toJSON`), and checked against admission by
 * the whole bound: the same calls are admitted and refused in the same order.
 */
import { describe, expect, it } from 'vitest';
import type { Part, Transcript } from '../core/transcript.ts';
import { defaultPriceTable, reprice } from '../pricing/price-table.ts';
import { estimateUpperBound } from '../providers/common/token-estimate.ts';
import { createMemoryStateStore } from '../state/memory.ts';
import type { StateStore } from '../state/types.ts';
import { admitCall, type KeyQuota, QuotaError } from './quota.ts';

const prices = defaultPriceTable();
const model = 'anthropic:claude-sonnet-4-5';

/** A body of `count` JSON values of `size` characters each, counting those written out. */
function body(count: number, size: number) {
  const seen = { written: 0 };
  const parts: Part[] = Array.from({ length: count }, () => ({
    type: 'structured' as const,
    value: { toJSON: () => (seen.written++, 'x'.repeat(size)) } as never,
  }));
  const transcript: Transcript = [{ kind: 'user', parts }];
  return { transcript, seen };
}

const admitted = (key: KeyQuota, transcript: Transcript, store = createMemoryStateStore()) =>
  admitCall(store, key, { request: { transcript, maxOutputTokens: 100 }, modelId: model }, prices);

describe('quota admission stops walking once its answer is settled', () => {
  it('tokens per minute: stops past the bucket, not at the end of the body', async () => {
    const { transcript, seen } = body(2_000, 400);
    const reservation = await admitted({ name: 'tpm', limits: { tokensPerMinute: 10_000 } }, transcript);
    expect(seen.written).toBeGreaterThan(0);
    expect(seen.written).toBeLessThan(40);
    expect(reservation.tokens).toBeGreaterThan(10_000);
  });

  it('requests per minute only: the bound decides nothing, one value at most is written', async () => {
    const { transcript, seen } = body(2_000, 400);
    await admitted({ name: 'rpm', limits: { requestsPerMinute: 5 } }, transcript);
    expect(seen.written).toBeLessThanOrEqual(1);
  });

  it('a budget: stops once the reservation reaches the limit, which it then does', async () => {
    const { transcript, seen } = body(200, 10_000);
    const key = { name: 'budget', budget: { usdPerDay: 1 } };
    const reservation = await admitted(key, transcript);
    // $1 at Claude Sonnet's input price is ~333k tokens, ~30 of the 200 values (the first look at
    // 65,536 tokens walked again): not the ~2.2M of the whole body.
    expect(seen.written).toBeLessThan(60);
    expect(reservation.reserveMicros).toBeGreaterThanOrEqual(1_000_000);
  });

  it('a small body is walked whole, its bound and reservation as before', async () => {
    const { transcript, seen } = body(10, 40);
    const key = { name: 'small', limits: { tokensPerMinute: 1_000_000 }, budget: { usdPerDay: 50 } };
    const reservation = await admitted(key, transcript);
    expect(seen.written).toBe(10);
    expect(reservation.tokens).toBe(estimateUpperBound({ transcript }) + 100);
  });
});

/** Admission by the whole bound, as before the walk stopped early. */
async function wholeBound(store: StateStore, key: KeyQuota, transcript: Transcript): Promise<string> {
  const input = estimateUpperBound({ transcript });
  const usage = { input, cacheRead: 0, cacheWrite: 0, output: 100, reasoning: 0 };
  const amount = reprice(usage, model, prices).cost?.amount ?? 0;
  const admission = await store.admit({
    key: key.name,
    tokens: input + 100,
    limits: key.limits,
    budget: key.budget,
    reserveMicros: key.budget === undefined ? 0 : Math.ceil(amount * 1_000_000),
  });
  return admission.allowed ? 'allowed' : admission.reason;
}

it('admission answers as with the whole bound, call after call, for limits and budgets', async () => {
  const keys: KeyQuota[] = [
    { name: 'tpm-small', limits: { tokensPerMinute: 5_000 } },
    { name: 'tpm-large', limits: { tokensPerMinute: 2_000_000 } },
    { name: 'rpm', limits: { requestsPerMinute: 3 } },
    { name: 'budget-small', budget: { usdPerDay: 0.05 } },
    { name: 'budget-day', budget: { usdPerDay: 5 } },
    { name: 'both', limits: { tokensPerMinute: 100_000 }, budget: { usdPerMonth: 2 } },
  ];
  const sizes = [
    [5, 100],
    [400, 2_000],
    [3, 50],
    [200, 10_000],
    [2, 10],
  ] as const;
  const now = () => 1_000_000;
  for (const key of keys) {
    const stopping = createMemoryStateStore({ now });
    const whole = createMemoryStateStore({ now });
    const answers: Array<[string, string]> = [];
    for (const [count, size] of sizes) {
      const { transcript } = body(count, size);
      const ours = await admitted(key, transcript, stopping).then(
        () => 'allowed',
        (error: unknown) => (error as QuotaError).wire.errorClass,
      );
      const theirs = await wholeBound(whole, key, transcript);
      answers.push([ours, theirs]);
    }
    const expected = answers.map(([, theirs]) =>
      theirs === 'allowed' ? 'allowed' : theirs === 'rate_limit' ? 'rate_limit' : 'invalid_request',
    );
    expect(
      answers.map(([ours]) => ours),
      key.name,
    ).toEqual(expected);
  }
});
