/** Cost of one call from its disjoint usage buckets and a model's prices (USD per million tokens, per 1,000 web searches). */
import { isStandardServiceTier, type Cost, type Usage } from '../core/usage.ts';
import type { DatedPrices, ModelPrices, PricedModel, Rate } from './types.ts';

/** The prices in force at `at`: the latest history entry whose start date is not after it. */
export function pricesAt(model: PricedModel, at: Date): ModelPrices {
  if (!Array.isArray(model.prices)) return model.prices;
  const history: DatedPrices[] = model.prices;
  for (let index = history.length - 1; index >= 0; index--) {
    const entry = history[index]!;
    if (entry.startDate === undefined || at.getTime() >= Date.parse(entry.startDate)) return entry.prices;
  }
  return history[0]!.prices;
}

/** The prices of a dated history in force at `now` (ms), with the span they stay in force. */
export interface PriceWindow {
  prices: ModelPrices;
  from: number;
  until: number;
}

/** Like {@link pricesAt}, with the time span the answer holds for (so it can be reused until then). */
export function priceWindow(model: PricedModel, now: number): PriceWindow {
  if (!Array.isArray(model.prices)) return { prices: model.prices, from: -Infinity, until: Infinity };
  const history: DatedPrices[] = model.prices;
  let until = Infinity;
  for (let index = history.length - 1; index >= 0; index--) {
    const entry = history[index]!;
    const start = entry.startDate === undefined ? -Infinity : Date.parse(entry.startDate);
    if (now >= start) return { prices: entry.prices, from: start, until };
    until = Math.min(until, start);
  }
  return { prices: history[0]!.prices, from: -Infinity, until };
}

/** USD per million tokens for a request with `totalInput` input tokens (tiers count all input buckets). */
export function rateFor(rate: Rate, totalInput: number): number {
  if (typeof rate === 'number') return rate;
  let price = rate.base;
  for (const tier of rate.tiers) if (totalInput > tier.start) price = tier.price;
  return price;
}

/**
 * The cost of `usage` at `prices`, or `undefined` when a bucket that holds tokens has no price (an
 * unknown price is never reported as 0). Cache reads without their own price are charged as input;
 * 1-hour cache writes without their own rate at the write rate. Reasoning is part of output. The
 * audio parts (`audioInput`, `audioCacheRead`, `audioOutput`) are priced at the model's audio rates,
 * at its text rate of the same bucket where it has none. Web
 * searches are added at `web_searches_kcount` (per 1,000) and shown as `webSearchFees`; a model
 * without that price is costed for its tokens alone, as before searches were counted.
 */
export function computeCost(usage: Usage, prices: ModelPrices, pricingVersion: string): Cost | undefined {
  const totalInput = usage.input + usage.cacheRead + usage.cacheWrite;
  const input = prices.input_mtok;
  const output = prices.output_mtok;
  if (input === undefined || output === undefined) return undefined;
  const cacheRead = prices.cache_read_mtok ?? input;
  const write = prices.cache_write_mtok;
  const write1h = prices.cache_write_1h_mtok ?? write;
  const long = Math.min(usage.cacheWrite1h ?? 0, usage.cacheWrite);
  const short = usage.cacheWrite - long;
  if ((short > 0 && write === undefined) || (long > 0 && write1h === undefined)) return undefined;
  // The audio parts of input, cache reads and output at the audio rates; without one, as text.
  const audioIn = Math.min(usage.audioInput ?? 0, usage.input);
  const audioCached = Math.min(usage.audioCacheRead ?? 0, usage.cacheRead);
  const audioOut = Math.min(usage.audioOutput ?? 0, usage.output);
  let micros =
    (usage.input - audioIn) * rateFor(input, totalInput) +
    (usage.cacheRead - audioCached) * rateFor(cacheRead, totalInput) +
    (usage.output - audioOut) * rateFor(output, totalInput);
  if (audioIn > 0) micros += audioIn * rateFor(prices.input_audio_mtok ?? input, totalInput);
  if (audioCached > 0) micros += audioCached * rateFor(prices.cache_audio_read_mtok ?? cacheRead, totalInput);
  if (audioOut > 0) micros += audioOut * rateFor(prices.output_audio_mtok ?? output, totalInput);
  if (short > 0) micros += short * rateFor(write!, totalInput);
  if (long > 0) micros += long * rateFor(write1h!, totalInput);
  const searches = usage.webSearches ?? 0;
  const searchPrice = prices.web_searches_kcount;
  if (searches === 0 || searchPrice === undefined)
    return { amount: roundAmount(micros / 1_000_000), currency: 'USD', pricingVersion };
  const fees = (searches * rateFor(searchPrice, totalInput)) / 1000;
  return {
    amount: roundAmount(micros / 1_000_000 + fees),
    currency: 'USD',
    pricingVersion,
    webSearchFees: roundAmount(fees),
  };
}

/** Rounds to 1e-10 USD so sums of prices do not print as 0.30000000000000004. */
export function roundAmount(amount: number): number {
  return Math.round(amount * 1e10) / 1e10;
}

/** Adds two costs; `undefined` when either is unknown or currencies differ. */
export function addCosts(left: Cost | undefined, right: Cost | undefined): Cost | undefined {
  if (left === undefined || right === undefined || left.currency !== right.currency) return undefined;
  const cost: Cost = { amount: roundAmount(left.amount + right.amount), currency: left.currency };
  const version = left.pricingVersion === right.pricingVersion ? left.pricingVersion : undefined;
  if (version !== undefined) cost.pricingVersion = version;
  if (left.webSearchFees !== undefined || right.webSearchFees !== undefined)
    cost.webSearchFees = roundAmount((left.webSearchFees ?? 0) + (right.webSearchFees ?? 0));
  // A sum with a part at the standard rate for an unpriced tier is an estimate too.
  const tier = left.unpricedServiceTier ?? right.unpricedServiceTier;
  if (tier !== undefined) cost.unpricedServiceTier = tier;
  return cost;
}

/**
 * A copy of `usage` without `cost` (and `byModel` when `total`). A plain spread when it has neither
 * (the usual case): an object rest with excluded keys takes V8's slow runtime path on every call.
 */
function withoutCost<Buckets extends { cost?: unknown; byModel?: unknown }>(
  usage: Buckets,
  total: boolean,
): Buckets {
  if (!Object.hasOwn(usage, 'cost') && !(total && Object.hasOwn(usage, 'byModel'))) return { ...usage };
  if (!total) {
    const { cost: _cost, ...buckets } = usage;
    return buckets as Buckets;
  }
  const { cost: _cost, byModel: _byModel, ...own } = usage;
  return own as Buckets;
}

/**
 * Prices a usage that may span several models: the top-level buckets at `prices` (the response's
 * own model), each `byModel` entry at its own model's prices (`lookup`). Returns the usage with each
 * entry's `cost` and the total `cost` (the sum); the total is absent when any part has no known
 * price (never a silent 0), and `unpriced` lists the models that lacked one.
 *
 * The table prices the standard tier only: a usage served on another tier (`serviceTier`, e.g.
 * OpenAI's `flex`, Anthropic's `batch`) is costed at the standard rate, its cost marked
 * `unpricedServiceTier`, and `unpricedTier` names that tier (the pricer warns once per model and tier).
 */
export function priceUsage(
  usage: Usage,
  prices: ModelPrices | undefined,
  lookup: (model: string) => ModelPrices | undefined,
  pricingVersion: string,
): { usage: Usage; unpriced: string[]; unpricedTier?: string } {
  const byModel = usage.byModel;
  const own = withoutCost(usage, true);
  const unpriced: string[] = [];
  let total = prices === undefined ? undefined : computeCost(own, prices, pricingVersion);
  let known = total !== undefined;
  let priced: Usage['byModel'];
  if (byModel !== undefined) {
    priced = {};
    for (const [model, part] of Object.entries(byModel)) {
      const buckets = withoutCost(part, false);
      const partPrices = lookup(model);
      const cost = partPrices === undefined ? undefined : computeCost(buckets, partPrices, pricingVersion);
      priced[model] = cost === undefined ? buckets : { ...buckets, cost };
      if (cost === undefined) {
        unpriced.push(model);
        known = false;
      } else total = known ? addCosts(total, cost) : total;
    }
  }
  const result: Usage = priced === undefined ? own : { ...own, byModel: priced };
  const tier = usage.serviceTier;
  if (known && total !== undefined) {
    if (tier !== undefined && !isStandardServiceTier(tier)) {
      result.cost = { ...total, unpricedServiceTier: tier };
      return { usage: result, unpriced, unpricedTier: tier };
    }
    result.cost = total;
  }
  return { usage: result, unpriced };
}
