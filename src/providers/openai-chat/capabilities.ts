/** Honest capability declarations: a baseline, OpenAI's model families, and per-model-glob overrides. */
import { LruCache } from '../../core/lru.ts';
import { applyModelRows, type Capabilities, type ModelCapabilities } from '../../core/capabilities.ts';
import { applyCatalog, catalogEntry, type ModelCatalog } from '../../core/catalog.ts';
import type { ChatQuirks } from './quirks.ts';

export { matchesAnyGlob, matchesGlob, openaiModelCapabilities } from '../openai/capabilities.ts';

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

/** Files the protocol carries: a `file` part takes PDF only. */
export const chatDocumentMediaTypes = ['application/pdf'] as const;

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

/** User-side capability overrides (every adapter takes them; the shared runtime applies them). */
export type { CapabilityOverrides } from '../../core/capabilities.ts';

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

/**
 * Returns the capability function of a Chat Completions host ({@link resolveHostCapabilities}):
 * its quirks' table plus a JSON host definition's own `capabilities` / `models`; structured output
 * is off when the host has no `response_format` for it.
 */
export function createCapabilityResolver(
  quirks: ChatQuirks,
  host: Partial<HostCapabilities> = {},
): (model: string) => Capabilities {
  return resolveHostCapabilities({ ...quirks, catalog: host.catalog }, (resolved, model) => {
    Object.assign(resolved, host.capabilities);
    applyModelRows(resolved, host.models, model);
    if (quirks.structuredOutput === 'none') resolved.structuredOutput = false;
  });
}
