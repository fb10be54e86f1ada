/**
 * What every OpenAI-protocol host (Chat Completions or Responses) starts from, and how one host's
 * capability table resolves per model: shared by the two protocol folders, which stay side by side.
 */
import { LruCache } from '../../core/lru.ts';
import { applyModelRows, type Capabilities, type ModelCapabilities } from '../../core/capabilities.ts';
import { applyCatalog, catalogEntry, type ModelCatalog } from '../../core/catalog.ts';

/** Image types of Chat Completions `image_url` (OpenAI's vision guide: PNG, JPEG, WEBP, non-animated GIF). */
export const chatImageMediaTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** Audio the protocol carries: `input_audio` takes `wav` or `mp3` only (the adapter maps these types). */
export const chatAudioMediaTypes = [
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/mpeg',
  'audio/mp3',
] as const;

/**
 * Documents both OpenAI protocols take: PDF, and text (Chat Completions' `file` part takes PDF
 * only, so its adapter sends a text document as text; a Responses `input_file` takes text files).
 */
export const chatDocumentMediaTypes = ['application/pdf', 'text/*'] as const;

/**
 * What a Chat Completions host offers before its own row says more: text, tools (streamed, in
 * parallel), system prompts, streaming. No media, no reasoning, no prompt caching; limits unknown
 * (0: not checked locally) until a model row, the catalog or the user says.
 */
export const baselineCapabilities: Capabilities = {
  images: false,
  audio: false,
  video: false,
  pdf: false,
  reasoning: false,
  tools: true,
  parallelToolCalls: true,
  structuredOutput: true,
  streaming: true,
  streamingToolCalls: true,
  promptCaching: false,
  systemPrompt: true,
  contextWindow: 0,
  maxOutputTokens: 0,
  imageMediaTypes: chatImageMediaTypes,
  audioMediaTypes: chatAudioMediaTypes,
  documentMediaTypes: chatDocumentMediaTypes,
};

/** One host's capability table: what every model has, then per-model globs (later keys win). */
export interface HostCapabilities {
  capabilities: Partial<Capabilities>;
  models?: ModelCapabilities;
  /** The host's models.dev rows: their limits replace the rows', their booleans only narrow. */
  catalog?: ModelCatalog;
}

/** Most models whose resolved capabilities one host keeps (model names come from callers). */
const maxCachedModels = 512;

/**
 * The capability function of an OpenAI-protocol host (Chat Completions or Responses): baseline ←
 * host capabilities ← host model globs ← the host's catalog row, then `adjust` (a protocol rule),
 * cached per model. The
 * user's overrides go on top in the shared runtime (`AdapterOptions.capabilities` / `models`).
 */
export function resolveHostCapabilities(
  host: HostCapabilities,
  adjust?: (resolved: Capabilities, model: string) => void,
): (model: string) => Capabilities {
  const cache = new LruCache<string, Capabilities>(maxCachedModels);
  return (model) => {
    const known = cache.get(model);
    if (known !== undefined) return known;
    const resolved: Capabilities = { ...baselineCapabilities, ...host.capabilities };
    applyModelRows(resolved, host.models, model);
    applyCatalog(resolved, catalogEntry(host.catalog, model));
    adjust?.(resolved, model);
    cache.set(model, resolved);
    return resolved;
  };
}
