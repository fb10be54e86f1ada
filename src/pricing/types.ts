/** The price-table shape: per provider, models matched by name, dated and tiered prices per million tokens (and per 1,000 web searches). */

/** How a price-table row matches a model's wire name (the genai-prices match language, case-insensitive). */
export type MatchLogic =
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string }
  | { or: MatchLogic[] }
  | { and: MatchLogic[] };

/** A price that depends on the request's total input tokens: `price` applies to every token once the total exceeds `start`. */
export interface TieredPrice {
  base: number;
  tiers: Array<{ start: number; price: number }>;
}

/** A price in USD per million tokens, flat or tiered. */
export type Rate = number | TieredPrice;

/**
 * The price fields: the one list the price type, the config schema and the price-table generator
 * derive from. The `_mtok` fields are USD per million tokens: `cache_write_mtok` is the cache-write
 * rate (Anthropic: the 5-minute TTL); `cache_write_1h_mtok` the 1-hour cache-write rate, where the
 * provider has one. `web_searches_kcount` is USD per 1,000 server-side web searches
 * (`Usage.webSearches`), genai-prices' name and unit. `input_audio_mtok`, `cache_audio_read_mtok`
 * and `output_audio_mtok` price the audio parts of input, cache reads and output
 * (`Usage.audioInput`, `audioCacheRead`, `audioOutput`) where the model prices audio apart.
 */
export const priceFields = [
  'input_mtok',
  'cache_read_mtok',
  'cache_write_mtok',
  'cache_write_1h_mtok',
  'output_mtok',
  'web_searches_kcount',
  'input_audio_mtok',
  'cache_audio_read_mtok',
  'output_audio_mtok',
] as const;

/** One of {@link priceFields}. */
export type PriceField = (typeof priceFields)[number];

/** The prices of one model at one time (the fields of {@link priceFields}, each in its own unit). */
export type ModelPrices = { [field in PriceField]?: Rate };

/** Prices in force from `startDate` (ISO date, UTC) on; an entry without one is the oldest. */
export interface DatedPrices {
  startDate?: string;
  prices: ModelPrices;
}

/** One priced model. */
export interface PricedModel {
  /** The row's id in the source (e.g. `claude-sonnet-4-5`). */
  id: string;
  match: MatchLogic;
  /** Where the prices come from when not the provider's main source (`models.dev`, a cited page). */
  source?: string;
  /** Flat prices, or their history oldest first. */
  prices: ModelPrices | DatedPrices[];
}

/** The price rows of one provider (Switchyard adapter name). */
export interface PricedProvider {
  name: string;
  /** The source's provider id. */
  source?: string;
  models: PricedModel[];
}

/** A whole price table. */
export interface PriceSnapshot {
  /** Reported as `usage.cost.pricingVersion`. */
  version: string;
  providers: PricedProvider[];
}
