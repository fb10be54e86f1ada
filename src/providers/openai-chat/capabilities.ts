/** Honest capability declarations: a baseline, OpenAI's model families, and per-model-glob overrides. */
import type { Capabilities } from '../../core/capabilities.ts';
import { matchesGlob, type ModelCapabilities } from '../openai/capabilities.ts';
import type { ChatQuirks } from './quirks.ts';

export { matchesAnyGlob, matchesGlob, openaiModelCapabilities } from '../openai/capabilities.ts';

const commonImageTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/**
 * What a Chat Completions host offers before its own row says more: text, tools (streamed, in
 * parallel), system prompts, streaming. No media, no reasoning, no prompt caching.
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
  contextWindow: 128_000,
  maxOutputTokens: 8_192,
  imageMediaTypes: commonImageTypes,
};

/** User-side capability overrides accepted by `createOpenAI` and `createOpenAICompatible`. */
export interface CapabilityOverrides {
  /** Applied to every model, after the host's own table. */
  capabilities?: Partial<Capabilities>;
  /** Per-model-glob overrides (e.g. `{'llama3*': {tools: false}}`), applied last, in key order. */
  models?: ModelCapabilities;
}

/** One host's capability table: what every model has, then per-model globs (later keys win). */
export interface HostCapabilities {
  capabilities: Partial<Capabilities>;
  models?: ModelCapabilities;
}

function applyModels(target: Capabilities, models: ModelCapabilities | undefined, model: string): void {
  if (models === undefined) return;
  for (const [pattern, overrides] of Object.entries(models)) {
    if (matchesGlob(pattern, model)) Object.assign(target, overrides);
  }
}

/**
 * The capability function of an OpenAI-protocol host (Chat Completions or Responses): baseline ←
 * host capabilities ← host model globs ← user capabilities ← user model globs, then `adjust` (a
 * protocol rule), cached per model.
 */
export function resolveHostCapabilities(
  host: HostCapabilities,
  overrides: CapabilityOverrides = {},
  adjust?: (resolved: Capabilities) => void,
): (model: string) => Capabilities {
  const cache = new Map<string, Capabilities>();
  return (model) => {
    const known = cache.get(model);
    if (known !== undefined) return known;
    const resolved: Capabilities = { ...baselineCapabilities, ...host.capabilities };
    applyModels(resolved, host.models, model);
    Object.assign(resolved, overrides.capabilities);
    applyModels(resolved, overrides.models, model);
    adjust?.(resolved);
    cache.set(model, resolved);
    return resolved;
  };
}

/**
 * Returns the capability function of a Chat Completions host ({@link resolveHostCapabilities});
 * structured output is off when the host has no `response_format` for it.
 */
export function createCapabilityResolver(
  quirks: ChatQuirks,
  overrides: CapabilityOverrides = {},
): (model: string) => Capabilities {
  const noStructuredOutput = (resolved: Capabilities) => {
    resolved.structuredOutput = false;
  };
  return resolveHostCapabilities(
    quirks,
    overrides,
    quirks.structuredOutput === 'none' ? noStructuredOutput : undefined,
  );
}
