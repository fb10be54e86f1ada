/** Prices responses for the front door: one WARN per model without a known price, never a silent 0. */
import { splitModelId } from '../core/ids.ts';
import { WarnOnce } from '../core/lru.ts';
import type { Logger } from '../core/logger.ts';
import type { Cost, Usage } from '../core/usage.ts';
import { priceUsage } from './cost.ts';
import type { PriceTable } from './price-table.ts';
import type { ModelPrices } from './types.ts';

/** Computes costs and remembers which models it warned about. */
export interface Pricer {
  readonly table: PriceTable;
  /**
   * The cost of `usage` on `model` (the model that served the call, often a dated name) when it is
   * `requested` (the id that was asked for) or a variant of it, else on `requested`, else on `model`;
   * `undefined` and one WARN per model when neither has a price.
   * A usage with `byModel` (several models in one response) costs the sum of every model's share.
   */
  cost(model: string, usage: Usage, overrides?: ModelPrices, requested?: string): Cost | undefined;
  /** `usage` priced: its `cost`, and each `byModel` entry's cost at that model's own rate. */
  price(model: string, usage: Usage, overrides?: ModelPrices, requested?: string): Usage;
}

/**
 * What may follow a model's name in the name of one of its dated or numbered versions: a date
 * (`-2025-04-14`, `-20250929`, Gemini's `-preview-09-2025`), a version number (`-001`, Mistral's
 * `-2411`) or a Bedrock version (`-v1:0`). Never another word: `gpt-4.1-nano` is no version of
 * `gpt-4.1`, and `gemini-2.5-flash-lite` none of `gemini-2.5-flash`.
 */
const versionSuffix = /^-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{3,4}|preview-\d{2}-\d{4}|v\d+(?::\d+)?)$/;

/** Whether `served` names `requested` or a dated or numbered version of it ({@link versionSuffix}). */
function isVariantOf(served: string, requested: string): boolean {
  const name = (id: string) => splitModelId(id).name.toLowerCase();
  const asked = name(requested);
  const got = name(served);
  return got === asked || (got.startsWith(asked) && versionSuffix.test(got.slice(asked.length)));
}

/** Distinct unpriced models warned about, at most. */
const maxWarnedModels = 1000;

/** Creates a pricer over `table`. */
export function createPricer(table: PriceTable, logger: Logger): Pricer {
  // One WARN per model up to a cap (then one saying so): distinct names cannot flood the log or the heap.
  const warned = new WarnOnce(maxWarnedModels);
  const warn = (model: string) => {
    const verdict = warned.check(model);
    if (verdict === 'warn') {
      logger.warn(`no known price for ${model}: its responses carry no cost`, {
        model,
        pricingVersion: table.version,
      });
    } else if (verdict === 'capped') {
      logger.warn(`no known price for ${maxWarnedModels}+ models: further unpriced models are not logged`, {
        pricingVersion: table.version,
      });
    }
  };
  // One WARN per model and unpriced service tier, capped alike.
  const warnedTiers = new WarnOnce(maxWarnedModels);
  const warnTier = (model: string, tier: string) => {
    const verdict = warnedTiers.check(`${model}\u0000${tier}`);
    if (verdict === 'warn') {
      logger.warn(
        `no known price for ${model} on the ${tier} service tier: its responses are costed at the standard rate (cost.unpricedServiceTier)`,
        { model, serviceTier: tier, pricingVersion: table.version },
      );
    } else if (verdict === 'capped') {
      logger.warn(
        `no known price for ${maxWarnedModels}+ models and service tiers: further ones are not logged`,
        { pricingVersion: table.version },
      );
    }
  };
  function price(model: string, usage: Usage, overrides?: ModelPrices, requested?: string): Usage {
    let prices = overrides;
    if (prices === undefined) {
      const asked = requested === undefined || requested === model ? undefined : table.lookup(requested);
      // The served name prices the call when it is the asked model or a dated name of it; a reply
      // naming another model (a host's mistake, or a hostile one) is priced as the model asked for.
      prices =
        asked !== undefined && !isVariantOf(model, requested!) ? asked : (table.lookup(model) ?? asked);
    }
    const priced = priceUsage(usage, prices, (other) => table.lookup(other), table.version);
    if (prices === undefined) warn(model);
    for (const other of priced.unpriced) warn(other);
    if (priced.unpricedTier !== undefined) warnTier(model, priced.unpricedTier);
    return priced.usage;
  }
  return {
    table,
    price,
    cost: (model, usage, overrides, requested) => price(model, usage, overrides, requested).cost,
  };
}
