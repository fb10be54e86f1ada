/** OpenAI model data shared by Chat Completions and Responses: capability rows per model family, glob matching. */
import type { Capabilities, ModelCapabilities } from '../../core/capabilities.ts';

export type { ModelCapabilities } from '../../core/capabilities.ts';

const vision: Partial<Capabilities> = { images: true, pdf: true };
const textOnly: Partial<Capabilities> = { images: false, pdf: false };
const reasoningModel: Partial<Capabilities> = { ...vision, reasoning: true };

/**
 * OpenAI's model families (the same models behind Chat Completions and Responses), general globs first (later keys win).
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

/** The one glob matcher (`src/core/glob.ts`), re-exported for the OpenAI adapters. */
export { matchesAnyGlob, matchesGlob } from '../../core/glob.ts';
