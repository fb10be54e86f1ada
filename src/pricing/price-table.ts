/** A price table: the bundled snapshot plus user overrides, looked up by canonical `provider:name`. */
import { splitModelId } from '../core/ids.ts';
import { LruCache } from '../core/lru.ts';
import { matchesGlob } from '../core/glob.ts';
import type { Usage } from '../core/usage.ts';
import { pricesAt, priceUsage, priceWindow, type PriceWindow } from './cost.ts';
import { dashDates, matchesLogic } from './match.ts';
import { bundledPrices } from './prices.generated.ts';
import type { ModelPrices, PricedModel, PriceSnapshot } from './types.ts';

/** Looks up the prices of models; build one with {@link createPriceTable}. */
export interface PriceTable {
  /** Reported as `usage.cost.pricingVersion`. */
  readonly version: string;
  /** The prices of `model` (`provider:name`) in force at `at` (default now), or `undefined` when unknown. */
  lookup(model: string, at?: Date): ModelPrices | undefined;
}

/** Options of {@link createPriceTable}. */
export interface PriceTableOptions {
  /** The base table (default: the bundled genai-prices snapshot). */
  snapshot?: PriceSnapshot;
  /**
   * Prices that win over the snapshot, keyed by canonical model id or glob (`openai:gpt-5*`), in
   * USD per million tokens. The first matching key wins.
   */
  overrides?: Record<string, ModelPrices>;
  /** Appended to the version when overrides are present (default `+overrides`). */
  overridesTag?: string;
}

/** Creates a price table. Lookups are cached per model id. */
export function createPriceTable(options: PriceTableOptions = {}): PriceTable {
  const snapshot = options.snapshot ?? bundledPrices;
  const overrides = Object.entries(options.overrides ?? {});
  const byProvider = new Map(snapshot.providers.map((provider) => [provider.name, provider.models]));
  // LRU-bounded: a stream of distinct unknown names cannot grow it.
  const cache = new LruCache<string, PricedModel | null>(2048);
  // The prices in force now, per dated row, reused until the next dated change.
  const current = new WeakMap<PricedModel, PriceWindow>();
  const version =
    overrides.length === 0 ? snapshot.version : `${snapshot.version}${options.overridesTag ?? '+overrides'}`;

  function find(model: string): PricedModel | null {
    for (const [pattern, prices] of overrides) {
      if (matchesGlob(pattern, model)) return { id: pattern, match: { equals: model }, prices };
    }
    const id = splitModelId(model);
    const rows = id.provider === undefined ? undefined : byProvider.get(id.provider);
    if (rows === undefined) return null;
    const name = id.name.toLowerCase();
    const dashed = dashDates(name);
    return (
      rows.find((row) => matchesLogic(row.match, name)) ??
      (dashed === name ? undefined : rows.find((row) => matchesLogic(row.match, dashed))) ??
      null
    );
  }

  return {
    version,
    lookup(model, at) {
      let row = cache.get(model);
      if (row === undefined) {
        row = find(model);
        cache.set(model, row);
      }
      if (row === null) return undefined;
      if (!Array.isArray(row.prices)) return row.prices;
      if (at !== undefined) return pricesAt(row, at);
      const now = Date.now();
      let window = current.get(row);
      if (window === undefined || now < window.from || now >= window.until) {
        window = priceWindow(row, now);
        current.set(row, window);
      }
      return window.prices;
    },
  };
}

let defaultTable: PriceTable | undefined;

/** The bundled table without overrides (created once). */
export function defaultPriceTable(): PriceTable {
  defaultTable ??= createPriceTable();
  return defaultTable;
}

/**
 * Recomputes the cost of a stored usage against `table` (default: the bundled one) at the prices
 * in force at `at` (default now). Returns a copy whose `cost` is set, or removed when the model has
 * no known price — never a cost of 0 standing for "unknown".
 */
export function reprice(
  usage: Usage,
  model: string,
  table: PriceTable = defaultPriceTable(),
  at?: Date,
): Usage {
  // Each model's share at its own rate (`byModel`), the total as `cost`.
  return priceUsage(usage, table.lookup(model, at), (other) => table.lookup(other, at), table.version).usage;
}
