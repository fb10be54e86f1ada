/** Honest capability declarations: a baseline, OpenAI's model families, and per-model-glob overrides. */
import type { Capabilities } from '../../core/capabilities.ts';
import { matchesGlob } from '../../core/glob.ts';
import type { ChatQuirks, ModelCapabilities } from './quirks.ts';

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

const vision: Partial<Capabilities> = { images: true, pdf: true };
const textOnly: Partial<Capabilities> = { images: false, pdf: false };
const reasoningModel: Partial<Capabilities> = { ...vision, reasoning: true };

/**
 * OpenAI's model families as served by Chat Completions, general globs first (later keys win).
 * Unknown models get the `capabilities` of the OpenAI row (a gpt-4o-like model without reasoning).
 */
export const openaiModelCapabilities: ModelCapabilities = {
  'gpt-4o*': { ...vision, contextWindow: 128_000, maxOutputTokens: 16_384 },
  'gpt-4o-audio-preview*': { ...textOnly, audio: true },
  'gpt-4o-mini-audio-preview*': { ...textOnly, audio: true },
  'gpt-4o-search-preview*': { tools: false, structuredOutput: false },
  'gpt-4o-mini-search-preview*': { tools: false, structuredOutput: false },
  'gpt-4.1*': { ...vision, contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4.5*': { ...vision, contextWindow: 128_000, maxOutputTokens: 16_384 },
  'gpt-5*': { ...reasoningModel, contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-chat*': { reasoning: false, contextWindow: 128_000, maxOutputTokens: 16_384 },
  'o1*': { ...reasoningModel, contextWindow: 200_000, maxOutputTokens: 100_000 },
  'o1-mini*': { ...textOnly, tools: false, structuredOutput: false, maxOutputTokens: 65_536 },
  'o3*': { ...reasoningModel, contextWindow: 200_000, maxOutputTokens: 100_000 },
  'o3-mini*': textOnly,
  'o4-mini*': { ...reasoningModel, contextWindow: 200_000, maxOutputTokens: 100_000 },
  'gpt-4-turbo*': { ...vision, structuredOutput: false, contextWindow: 128_000, maxOutputTokens: 4_096 },
  'gpt-4': { ...textOnly, structuredOutput: false, contextWindow: 8_192, maxOutputTokens: 8_192 },
  'gpt-4-0*': { ...textOnly, structuredOutput: false, contextWindow: 8_192, maxOutputTokens: 8_192 },
  'gpt-3.5*': { ...textOnly, structuredOutput: false, contextWindow: 16_385, maxOutputTokens: 4_096 },
};

/** User-side capability overrides accepted by `createOpenAI` and `createOpenAICompatible`. */
export interface CapabilityOverrides {
  /** Applied to every model, after the host's own table. */
  capabilities?: Partial<Capabilities>;
  /** Per-model-glob overrides (e.g. `{'llama3*': {tools: false}}`), applied last, in key order. */
  models?: ModelCapabilities;
}

export { matchesAnyGlob, matchesGlob } from '../../core/glob.ts';

function applyModels(target: Capabilities, models: ModelCapabilities | undefined, model: string): void {
  if (models === undefined) return;
  for (const [pattern, overrides] of Object.entries(models)) {
    if (matchesGlob(pattern, model)) Object.assign(target, overrides);
  }
}

/**
 * Returns the capability function of a host: baseline ← host capabilities ← host model globs ←
 * user capabilities ← user model globs. Structured output is off when the host has no
 * `response_format` for it. Results are cached per model.
 */
export function createCapabilityResolver(
  quirks: ChatQuirks,
  overrides: CapabilityOverrides = {},
): (model: string) => Capabilities {
  const cache = new Map<string, Capabilities>();
  return (model) => {
    const known = cache.get(model);
    if (known !== undefined) return known;
    const resolved: Capabilities = { ...baselineCapabilities, ...quirks.capabilities };
    applyModels(resolved, quirks.models, model);
    Object.assign(resolved, overrides.capabilities);
    applyModels(resolved, overrides.models, model);
    if (quirks.structuredOutput === 'none') resolved.structuredOutput = false;
    cache.set(model, resolved);
    return resolved;
  };
}
