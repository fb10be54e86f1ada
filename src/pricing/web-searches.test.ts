/** Web searches in the cost: the bundled per-1,000 prices, the fee in the amount and in `webSearchFees`. */
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import { parseConfig } from '../registry/config.ts';
import { addCosts, computeCost } from './cost.ts';
import { createPricer } from './pricer.ts';
import { createPriceTable, defaultPriceTable, reprice } from './price-table.ts';

const usage = (counts: Partial<Usage>): Usage => ({ ...emptyUsage(), ...counts });
const table = defaultPriceTable();
const at = new Date('2026-11-01T00:00:00Z');
const cost = (model: string, counts: Partial<Usage>) => reprice(usage(counts), model, table, at).cost;

describe('the bundled table prices web searches per 1,000 (genai-prices web_searches_kcount)', () => {
  it.each([
    ['anthropic:claude-sonnet-4-5', 10],
    ['anthropic:claude-opus-4-6', 10],
    ['anthropic:claude-haiku-4-5-20251001', 10],
    ['openai:gpt-4.1', 10],
    ['openai:gpt-5-mini-2025-08-07', 10],
    ['openai:o3', 10],
    ['perplexity:sonar-deep-research', 5],
  ] as const)('%s: $%d per 1,000 searches', (model, price) => {
    expect(table.lookup(model, at)?.web_searches_kcount).toBe(price);
  });

  it('a model its source gives no search price has none (Gemini, DeepSeek)', () => {
    expect(table.lookup('gemini:gemini-2.5-pro', at)?.web_searches_kcount).toBeUndefined();
    expect(table.lookup('deepseek:deepseek-chat', at)?.web_searches_kcount).toBeUndefined();
  });
});

describe('cost with web searches', () => {
  it('Claude Sonnet 4.5, 1,000 in, 500 out and 2 searches: $0.0105 of tokens + 2 × $0.01, the fees shown apart', () => {
    expect(cost('anthropic:claude-sonnet-4-5', { input: 1000, output: 500, webSearches: 2 })).toEqual({
      amount: 0.0305,
      currency: 'USD',
      pricingVersion: table.version,
      webSearchFees: 0.02,
    });
  });

  it('GPT-5 mini, 3 searches and no tokens: $0.03; Perplexity Sonar Deep Research at $5 per 1,000', () => {
    expect(cost('openai:gpt-5-mini', { webSearches: 3 })).toMatchObject({
      amount: 0.03,
      webSearchFees: 0.03,
    });
    expect(cost('perplexity:sonar-deep-research', { webSearches: 4 })).toMatchObject({
      amount: 0.02,
      webSearchFees: 0.02,
    });
  });

  it('no searches: the cost is the tokens’, without webSearchFees', () => {
    expect(cost('anthropic:claude-sonnet-4-5', { input: 1000, output: 500 })).toEqual({
      amount: 0.0105,
      currency: 'USD',
      pricingVersion: table.version,
    });
  });

  it('a model without a search price is costed for its tokens alone', () => {
    // Gemini 2.5 Flash: $0.30 in, $2.50 out; genai-prices has no per-search price for it.
    expect(cost('gemini:gemini-2.5-flash', { input: 10_000, output: 1000, webSearches: 5 })).toEqual({
      amount: 0.0055,
      currency: 'USD',
      pricingVersion: table.version,
    });
  });

  it('an override’s web_searches_kcount prices the searches (config pricing accepts the field)', () => {
    const config = parseConfig({
      pricing: { 'anthropic:claude-sonnet-4-5': { input_mtok: 1, output_mtok: 1, web_searches_kcount: 25 } },
    });
    const custom = createPriceTable({ overrides: config.pricing });
    expect(reprice(usage({ webSearches: 4 }), 'anthropic:claude-sonnet-4-5', custom).cost).toMatchObject({
      amount: 0.1,
      webSearchFees: 0.1,
    });
  });

  it('summed costs sum their web-search fees (a conversation, a fallback’s carried usage)', () => {
    const searched = computeCost(
      usage({ input: 1000, webSearches: 1 }),
      { input_mtok: 3, output_mtok: 15, web_searches_kcount: 10 },
      'v',
    );
    const plain = computeCost(usage({ input: 1000 }), { input_mtok: 3, output_mtok: 15 }, 'v');
    expect(addCosts(searched, plain)).toEqual({
      amount: 0.016,
      currency: 'USD',
      pricingVersion: 'v',
      webSearchFees: 0.01,
    });
    expect(addCosts(searched, searched)?.webSearchFees).toBe(0.02);
    expect(addCosts(plain, plain)).not.toHaveProperty('webSearchFees');
  });

  it('a response of two models: each model’s searches at its own price, the total’s fees summed', () => {
    const pricer = createPricer(table, createMemoryLogger());
    const priced = pricer.price(
      'anthropic:claude-sonnet-4-5',
      usage({ webSearches: 1, byModel: { 'openai:gpt-4.1': usage({ webSearches: 2 }) } }),
    );
    expect(priced.byModel?.['openai:gpt-4.1']?.cost).toMatchObject({ amount: 0.02, webSearchFees: 0.02 });
    expect(priced.cost).toMatchObject({ amount: 0.03, webSearchFees: 0.03 });
  });
});
