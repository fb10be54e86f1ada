import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import { addCosts, computeCost } from './cost.ts';
import { createPricer } from './pricer.ts';
import { createPriceTable, defaultPriceTable, reprice } from './price-table.ts';

const usage = (counts: Partial<Usage>): Usage => ({ ...emptyUsage(), ...counts });
const table = defaultPriceTable();
const at = new Date('2026-11-01T00:00:00Z');
const amount = (model: string, counts: Partial<Usage>) =>
  reprice(usage(counts), model, table, at).cost?.amount;

describe('hand-checked against the providers published prices (USD per million tokens)', () => {
  // Each expected amount is worked out by hand from the provider's price page, not from the table.
  it.each([
    // Claude Sonnet 4.5: $3 in, $15 out.
    ['anthropic:claude-sonnet-4-5', { input: 1000, output: 500 }, 0.0105],
    // Cache read $0.30, 5-minute cache write $3.75: 200×3 + 10 000×0.3 + 2 000×3.75 + 300×15 = 15 600 µ$.
    ['anthropic:claude-sonnet-4-5', { input: 200, cacheRead: 10_000, cacheWrite: 2000, output: 300 }, 0.0156],
    // 1-hour cache write $6: 100×3 + 2 000×6 + 100×15 = 13 800 µ$.
    [
      'anthropic:claude-sonnet-4-5',
      { input: 100, cacheWrite: 2000, cacheWrite1h: 2000, output: 100 },
      0.0138,
    ],
    // Claude Opus 4.1: $15 in, $75 out.
    ['anthropic:claude-opus-4-1', { input: 2000, output: 1000 }, 0.105],
    // Claude Haiku 4.5: $1 in, $5 out.
    ['anthropic:claude-haiku-4-5-20251001', { input: 10_000, output: 2000 }, 0.02],
    // GPT-4o: $2.50 in, $1.25 cached, $10 out.
    ['openai:gpt-4o', { input: 1000, cacheRead: 1000, output: 500 }, 0.00875],
    // GPT-4.1 mini: $0.40 in, $1.60 out.
    ['openai:gpt-4.1-mini', { input: 100_000, output: 10_000 }, 0.056],
    // GPT-5: $1.25 in, $10 out; reasoning is billed as output.
    ['openai:gpt-5', { input: 1000, output: 5000, reasoning: 4000 }, 0.05125],
    // Gemini 2.5 Pro up to 200k input: $1.25 in, $10 out.
    ['gemini:gemini-2.5-pro', { input: 100_000, output: 1000 }, 0.135],
    // Gemini 2.5 Pro above 200k input: $2.50 in, $15 out for the whole request.
    ['gemini:gemini-2.5-pro', { input: 250_000, output: 1000 }, 0.64],
    // Gemini 2.5 Flash: $0.30 in, $2.50 out.
    ['gemini:gemini-2.5-flash', { input: 10_000, output: 1000 }, 0.0055],
  ] as const)('%s %j costs $%d', (model, counts, expected) => {
    expect(amount(model, counts)).toBeCloseTo(expected, 10);
  });
});

describe('prices', () => {
  it('tiered: Claude Sonnet 4.5 above 200k input tokens is $6 in / $22.50 out on every token', () => {
    expect(amount('anthropic:claude-sonnet-4-5', { input: 200_000, output: 1000 })).toBeCloseTo(0.615, 10);
    expect(
      amount('anthropic:claude-sonnet-4-5', { input: 190_000, cacheRead: 20_000, output: 1000 }),
    ).toBeCloseTo((190_000 * 6 + 20_000 * 0.6 + 1000 * 22.5) / 1e6, 10);
  });

  it('cache writes: the 5-minute and 1-hour rates apply to their own share of cacheWrite', () => {
    const mixed = amount('anthropic:claude-haiku-4-5', { cacheWrite: 3000, cacheWrite1h: 1000 });
    expect(mixed).toBeCloseTo((2000 * 1.25 + 1000 * 2) / 1e6, 12);
  });

  it('dated history: o3 before and after the 2025-06-10 price cut', () => {
    const counts = usage({ input: 1_000_000, output: 1_000_000 });
    expect(reprice(counts, 'openai:o3', table, new Date('2025-05-01')).cost?.amount).toBe(50);
    expect(reprice(counts, 'openai:o3', table, new Date('2025-07-01')).cost?.amount).toBe(10);
  });

  it('a dated model name matches its row (claude-sonnet-4-20250514)', () => {
    expect(amount('anthropic:claude-sonnet-4-20250514', { input: 1_000_000 })).toBe(3);
  });

  it('reprice replaces a stored cost and carries the table version', () => {
    const stored: Usage = { ...usage({ input: 1000, output: 1000 }), cost: { amount: 99, currency: 'USD' } };
    const repriced = reprice(stored, 'openai:gpt-4o', table, at);
    expect(repriced.cost).toEqual({ amount: 0.0125, currency: 'USD', pricingVersion: table.version });
    expect(stored.cost?.amount).toBe(99);
  });

  it('an unknown model reprices to no cost, never 0', () => {
    const stored: Usage = { ...usage({ input: 10 }), cost: { amount: 1, currency: 'USD' } };
    expect(reprice(stored, 'mistral:zai-glm-5-2', table).cost).toBeUndefined();
    expect(reprice(stored, 'nowhere:model', table).cost).toBeUndefined();
  });

  it('a bucket with tokens but no price gives no cost (DeepSeek has no cache-write price)', () => {
    expect(amount('deepseek:deepseek-chat', { input: 10, cacheWrite: 10 })).toBeUndefined();
    expect(amount('deepseek:deepseek-chat', { input: 1_000_000 })).toBeGreaterThan(0);
  });

  it('overrides win by exact id or glob and mark the version', () => {
    const custom = createPriceTable({
      overrides: {
        'openai:gpt-4o': { input_mtok: 1, output_mtok: 2 },
        'ollama:*': { input_mtok: 0, output_mtok: 0 },
      },
    });
    expect(reprice(usage({ input: 1e6, output: 1e6 }), 'openai:gpt-4o', custom).cost).toEqual({
      amount: 3,
      currency: 'USD',
      pricingVersion: `${table.version}+overrides`,
    });
    expect(reprice(usage({ input: 5 }), 'ollama:llama3', custom).cost?.amount).toBe(0);
  });

  it('computeCost needs input and output prices', () => {
    expect(computeCost(usage({ input: 1 }), { input_mtok: 1 }, 'v')).toBeUndefined();
  });
});

describe('pricer', () => {
  it('warns once per unpriced model and returns no cost', () => {
    const logger = createMemoryLogger();
    const pricer = createPricer(table, logger);
    expect(pricer.cost('mistral:zai-glm-5-2', usage({ input: 5 }))).toBeUndefined();
    expect(pricer.cost('mistral:zai-glm-5-2', usage({ input: 7 }))).toBeUndefined();
    expect(logger.entries).toHaveLength(1);
    expect(logger.entries[0]?.message).toContain('no known price for mistral:zai-glm-5-2');
    expect(pricer.cost('openai:gpt-4o', usage({ input: 1e6 }))?.amount).toBe(2.5);
    expect(logger.entries).toHaveLength(1);
  });

  describe('the served name against the asked-for model', () => {
    const pricer = createPricer(table, createMemoryLogger());
    const million = usage({ input: 1e6 });
    const asked = pricer.cost('openai:gpt-4.1-mini', million)?.amount;
    const nano = pricer.cost('openai:gpt-4.1-nano', million)?.amount;

    it('a dated name of the asked model prices the call', () => {
      expect(
        pricer.cost('openai:gpt-4.1-mini-2025-04-14', million, undefined, 'openai:gpt-4.1-mini')?.amount,
      ).toBe(asked);
    });

    it('a reply naming another priced model (a host mistaken or hostile) is priced as the model asked for', () => {
      expect(nano).not.toBe(asked);
      expect(pricer.cost('openai:gpt-4.1-nano', million, undefined, 'openai:gpt-4.1-mini')?.amount).toBe(
        asked,
      );
      expect(pricer.cost('openai:no-such-model', million, undefined, 'openai:gpt-4.1-mini')?.amount).toBe(
        asked,
      );
    });

    it('a sibling is no version: the asked-for name followed by a word prices as the model asked for', () => {
      const full = pricer.cost('openai:gpt-4.1', million)?.amount;
      expect(full).not.toBe(nano);
      expect(pricer.cost('openai:gpt-4.1-nano', million, undefined, 'openai:gpt-4.1')?.amount).toBe(full);
      const flash = pricer.cost('gemini:gemini-2.5-flash', million)?.amount;
      const lite = pricer.cost('gemini:gemini-2.5-flash-lite', million)?.amount;
      expect(lite).not.toBe(flash);
      expect(
        pricer.cost('gemini:gemini-2.5-flash-lite', million, undefined, 'gemini:gemini-2.5-flash')?.amount,
      ).toBe(flash);
      // A dated version priced on its own keeps its own price.
      const dated = pricer.cost('openai:gpt-4o-2024-05-13', million)?.amount;
      expect(dated).not.toBe(pricer.cost('openai:gpt-4o', million)?.amount);
      expect(pricer.cost('openai:gpt-4o-2024-05-13', million, undefined, 'openai:gpt-4o')?.amount).toBe(
        dated,
      );
    });

    it('the served name prices a call whose asked-for model has no price (a router such as auto)', () => {
      expect(pricer.cost('openai:gpt-4.1-nano', million, undefined, 'openai:auto')?.amount).toBe(nano);
    });
  });
});

describe('service tiers (the table prices the standard tier only)', () => {
  const million = { input: 1e6, output: 1e6 };

  it.each(['standard', 'default', 'on_demand', 'DEFAULT'])(
    'a call the provider says was served on its standard tier (%s) is priced as before, unmarked',
    (tier) => {
      const cost = reprice(usage({ ...million, serviceTier: tier }), 'openai:gpt-4o', table, at).cost;
      expect(cost).toEqual({ amount: 12.5, currency: 'USD', pricingVersion: table.version });
    },
  );

  it('a call served on a tier the table has no price for is costed at the standard rate and marked so', () => {
    const cost = reprice(usage({ ...million, serviceTier: 'flex' }), 'openai:gpt-4o', table, at).cost;
    expect(cost).toEqual({
      amount: 12.5,
      currency: 'USD',
      pricingVersion: table.version,
      unpricedServiceTier: 'flex',
    });
  });

  it('the pricer warns once per model and unpriced tier, and never for a standard one', () => {
    const logger = createMemoryLogger();
    const pricer = createPricer(table, logger);
    pricer.cost('openai:gpt-4o', usage({ ...million, serviceTier: 'default' }));
    expect(logger.entries).toHaveLength(0);
    expect(pricer.cost('openai:gpt-4o', usage({ ...million, serviceTier: 'flex' }))).toMatchObject({
      amount: 12.5,
      unpricedServiceTier: 'flex',
    });
    pricer.cost('openai:gpt-4o', usage({ input: 5, serviceTier: 'flex' }));
    pricer.cost('anthropic:claude-sonnet-4-5', usage({ input: 5, serviceTier: 'priority' }));
    pricer.cost('openai:gpt-4o', usage({ input: 5, serviceTier: 'priority' }));
    expect(logger.entries.map((entry) => [entry.fields.model, entry.fields.serviceTier])).toEqual([
      ['openai:gpt-4o', 'flex'],
      ['anthropic:claude-sonnet-4-5', 'priority'],
      ['openai:gpt-4o', 'priority'],
    ]);
    expect(logger.entries[0]?.message).toContain('costed at the standard rate');
  });

  it('an unpriced model on a non-standard tier stays without a cost (never a standard-rate guess)', () => {
    expect(reprice(usage({ input: 10, serviceTier: 'flex' }), 'nowhere:model', table).cost).toBeUndefined();
  });

  it('a sum of costs with one marked part is marked', () => {
    const plain = { amount: 1, currency: 'USD' };
    expect(addCosts(plain, { amount: 2, currency: 'USD', unpricedServiceTier: 'batch' })).toEqual({
      amount: 3,
      currency: 'USD',
      unpricedServiceTier: 'batch',
    });
  });
});

describe('audio tokens at the audio rates (genai-prices input_audio_mtok, cache_audio_read_mtok, output_audio_mtok)', () => {
  it('Gemini 2.5 Flash: audio input $1, cached audio $0.10, text $0.30 per million', () => {
    // 600 audio + 100 text uncached, 400 cached audio, 30 output at $2.50.
    const cost = amount('gemini:gemini-2.5-flash', {
      input: 700,
      audioInput: 600,
      cacheRead: 400,
      audioCacheRead: 400,
      output: 30,
    });
    expect(cost).toBeCloseTo((600 * 1 + 100 * 0.3 + 400 * 0.1 + 30 * 2.5) / 1e6, 12);
  });

  it('gpt-audio: audio in $32 and out $64, text in $2.50 and out $10 per million', () => {
    const cost = amount('openai:gpt-audio', { input: 1000, audioInput: 800, output: 500, audioOutput: 400 });
    expect(cost).toBeCloseTo((200 * 2.5 + 800 * 32 + 100 * 10 + 400 * 64) / 1e6, 12);
  });

  it('a model without an audio rate prices its audio as text', () => {
    expect(amount('openai:gpt-4o', { input: 1e6, audioInput: 1e6 })).toBe(
      amount('openai:gpt-4o', { input: 1e6 }),
    );
  });
});
