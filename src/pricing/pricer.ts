/** Prices responses for the front door: one WARN per model without a known price, never a silent 0. */
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
   * The cost of `usage` on `model` (the model that served the call, often a dated name), else on
   * `requested` (the id that was asked for); `undefined` and one WARN per model when neither has a price.
   * A usage with `byModel` (several models in one response) costs the sum of every model's share.
   */
  cost(model: string, usage: Usage, overrides?: ModelPrices, requested?: string): Cost | undefined;
  /** `usage` priced: its `cost`, and each `byModel` entry's cost at that model's own rate. */
  price(model: string, usage: Usage, overrides?: ModelPrices, requested?: string): Usage;
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
  function price(model: string, usage: Usage, overrides?: ModelPrices, requested?: string): Usage {
    let prices = overrides ?? table.lookup(model);
    if (prices === undefined && requested !== undefined && requested !== model)
      prices = table.lookup(requested);
    const priced = priceUsage(usage, prices, (other) => table.lookup(other), table.version);
    if (prices === undefined) warn(model);
    for (const other of priced.unpriced) warn(other);
    return priced.usage;
  }
  return {
    table,
    price,
    cost: (model, usage, overrides, requested) => price(model, usage, overrides, requested).cost,
  };
}
