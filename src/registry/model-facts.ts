/**
 * The one table of model facts: the models.dev catalog (context window, output limit, input
 * modalities, tool and reasoning support) merged with what the adapter's protocol exposes and the
 * user's overrides, in that order of increasing precedence.
 */
import type { Capabilities } from '../core/capabilities.ts';
import { bundledCatalog } from './catalog.generated.ts';

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

/** Everything known about one model. */
export interface ModelFacts extends Capabilities {
  displayName?: string;
  releaseDate?: string;
  /** Where the facts came from, lowest precedence first. */
  sources: Array<'adapter' | 'catalog' | 'config'>;
}

/** The catalog entry of `provider:wireName`, trying the name without a date suffix too. */
export function catalogModel(provider: string, wireName: string): CatalogModel | undefined {
  const models = bundledCatalog[provider];
  if (models === undefined) return undefined;
  return models[wireName] ?? models[wireName.replace(/-\d{8}$|-\d{4}-\d{2}-\d{2}$/, '')];
}

/**
 * Merges the three layers. The catalog's limits replace the adapter's family defaults; the catalog
 * only narrows booleans (a model without tool calling or image input loses `tools` / `images`),
 * because an adapter must declare false what its protocol does not expose (contract §3.4), and
 * modalities the catalog omits (PDF on many rows) are left to the adapter. Overrides win.
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
    if (catalog.contextWindow !== undefined) facts.contextWindow = catalog.contextWindow;
    if (catalog.maxOutputTokens !== undefined) facts.maxOutputTokens = catalog.maxOutputTokens;
    if (!catalog.tools) facts.tools = facts.parallelToolCalls = facts.streamingToolCalls = false;
    if (!catalog.inputModalities.includes('image')) facts.images = false;
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
