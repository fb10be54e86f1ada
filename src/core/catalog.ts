/** Catalog model facts (the models.dev snapshot) and how they apply over an adapter's declared capabilities. */
import type { Capabilities } from './capabilities.ts';

/** One model as the catalog describes it. */
export interface CatalogModel {
  displayName?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  /** `text`, `image`, `pdf`, `audio`, `video`. */
  inputModalities: string[];
  tools: boolean;
  reasoning: boolean;
  releaseDate?: string;
}

/** One adapter's catalog: model facts by wire name. */
export type ModelCatalog = Readonly<Record<string, CatalogModel>>;

const dateSuffix = /-\d{8}$|-\d{4}-\d{2}-\d{2}$/;

/**
 * The entry of `wireName` in `catalog`: the exact name, else the name without a date suffix
 * (`gpt-4o-2024-08-06` → `gpt-4o`) or `-latest`, else the newest dated snapshot of that name
 * (`claude-opus-4-1` → `claude-opus-4-1-20250805`).
 */
export function catalogEntry(catalog: ModelCatalog | undefined, wireName: string): CatalogModel | undefined {
  if (catalog === undefined) return undefined;
  // Own entries only: a model name is the caller's text, and `constructor` or `toString` would
  // otherwise find the object's built-in functions.
  if (Object.hasOwn(catalog, wireName)) return catalog[wireName];
  const base = wireName.replace(dateSuffix, '').replace(/-latest$/, '');
  if (Object.hasOwn(catalog, base)) return catalog[base];
  let newest: string | undefined;
  for (const name in catalog) {
    if (name.startsWith(`${base}-`) && dateSuffix.test(name) && name.replace(dateSuffix, '') === base) {
      if (newest === undefined || name > newest) newest = name;
    }
  }
  return newest === undefined ? undefined : catalog[newest];
}

/**
 * Applies a catalog entry onto an adapter's capabilities: the catalog's limits (context window,
 * output limit) replace the adapter's family rows; its booleans only narrow (a model without tool
 * calling or image input loses `tools` / `images`), because an adapter declares false what its
 * protocol does not carry (docs/contract.md §3.4), and modalities the catalog omits (PDF on many
 * rows) are left to the adapter.
 */
export function applyCatalog(target: Capabilities, entry: CatalogModel | undefined): void {
  if (entry === undefined) return;
  if (entry.contextWindow !== undefined) target.contextWindow = entry.contextWindow;
  if (entry.maxOutputTokens !== undefined) target.maxOutputTokens = entry.maxOutputTokens;
  if (!entry.tools) target.tools = target.parallelToolCalls = target.streamingToolCalls = false;
  if (!entry.inputModalities.includes('image')) target.images = false;
}

/**
 * Wraps an adapter's capability function with its catalog (see {@link applyCatalog}); the adapter's
 * own rows decide for models the catalog does not list.
 */
export function withCatalog(
  declared: (model: string) => Capabilities,
  catalog: ModelCatalog | undefined,
): (model: string) => Capabilities {
  if (catalog === undefined) return declared;
  const cache = new Map<string, Capabilities>();
  return (model) => {
    const known = cache.get(model);
    if (known !== undefined) return known;
    const resolved = { ...declared(model) };
    applyCatalog(resolved, catalogEntry(catalog, model));
    // Model names come from callers: the cache is bounded.
    if (cache.size >= 512) cache.clear();
    cache.set(model, resolved);
    return resolved;
  };
}
