/**
 * Model facts as the front door sees them: the adapter's capabilities (its own table, the
 * models.dev catalog rows and the user's overrides, merged by the adapter) and, for an adapter
 * that is not configured, the catalog alone; then the config's overrides.
 */
import type { Capabilities } from '../core/capabilities.ts';
import { type CatalogModel, catalogEntry } from '../core/catalog.ts';
import { bundledCatalog } from '../providers/catalog/index.ts';

export type { CatalogModel } from '../core/catalog.ts';

/** Everything known about one model. */
export interface ModelFacts extends Capabilities {
  displayName?: string;
  releaseDate?: string;
  /** Where the facts came from, lowest precedence first. */
  sources: Array<'adapter' | 'catalog' | 'config'>;
}

/** The catalog entry of `provider:wireName`, trying the name without a date suffix too. */
export function catalogModel(provider: string, wireName: string): CatalogModel | undefined {
  return catalogEntry(bundledCatalog[provider], wireName);
}

/**
 * Whether `wireName` is a row of `provider`'s bundled catalog as written (own rows only, no date
 * suffix dropped): a fixed set of names, so a label taken from it cannot grow with what clients send.
 */
export function isCatalogued(provider: string, wireName: string): boolean {
  const catalog = bundledCatalog[provider];
  return catalog !== undefined && Object.hasOwn(catalog, wireName);
}

/**
 * Merges the layers. A configured adapter's capabilities already hold the catalog row (its limits
 * replace the adapter's rows, its booleans only narrow: `core/catalog.ts`) and the config's
 * overrides (the registry hands them to the adapter as `models`); an adapter that could not be
 * created is described by the catalog alone. Overrides win.
 */
export function mergeFacts(
  adapter: Capabilities | undefined,
  catalog: CatalogModel | undefined,
  overrides: Partial<Capabilities> | undefined,
): ModelFacts {
  const sources: ModelFacts['sources'] = [];
  const facts: ModelFacts = { ...(adapter ?? catalogOnly(catalog)), sources };
  if (adapter !== undefined) sources.push('adapter');
  if (catalog !== undefined) {
    sources.push('catalog');
    if (catalog.displayName !== undefined) facts.displayName = catalog.displayName;
    if (catalog.releaseDate !== undefined) facts.releaseDate = catalog.releaseDate;
  }
  if (overrides !== undefined && Object.keys(overrides).length > 0) {
    sources.push('config');
    Object.assign(facts, overrides);
  }
  return facts;
}

/** Capabilities from the catalog alone (an adapter that could not be created, e.g. not configured). */
function catalogOnly(catalog: CatalogModel | undefined): Capabilities {
  const inputs = catalog?.inputModalities ?? ['text'];
  return {
    images: inputs.includes('image'),
    audio: inputs.includes('audio'),
    video: inputs.includes('video'),
    pdf: inputs.includes('pdf'),
    reasoning: catalog?.reasoning ?? false,
    tools: catalog?.tools ?? false,
    parallelToolCalls: catalog?.tools ?? false,
    structuredOutput: false,
    streaming: true,
    streamingToolCalls: catalog?.tools ?? false,
    promptCaching: false,
    systemPrompt: true,
    contextWindow: catalog?.contextWindow ?? 0,
    maxOutputTokens: catalog?.maxOutputTokens ?? 0,
    imageMediaTypes: [],
    audioMediaTypes: [],
    documentMediaTypes: [],
  };
}
