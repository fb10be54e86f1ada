/** OpenAI model data shared by Chat Completions and Responses: capability rows per model family, glob matching. */
import type { Capabilities, ModelCapabilities } from '../../core/capabilities.ts';

export type { ModelCapabilities } from '../../core/capabilities.ts';

const vision: Partial<Capabilities> = { images: true, pdf: true };
const textOnly: Partial<Capabilities> = { images: false, pdf: false };
const reasoningModel: Partial<Capabilities> = { ...vision, reasoning: true };

/**
 * OpenAI's model families (the same models behind Chat Completions and Responses), general globs first (later keys win).
 * Unknown models get the `capabilities` of the OpenAI row (a gpt-4o-like model without reasoning).
 * Token limits come from the models.dev catalog (`src/providers/catalog/openai.generated.ts`) for
 * every model it lists; rows carry limits only for families the snapshot lacks (`gpt-4.5`), so no
 * number is kept in two places (`test/conformance/model-facts.test.ts`).
 */
export const openaiModelCapabilities: ModelCapabilities = {
  'gpt-4o*': vision,
  'gpt-4o-audio-preview*': { ...textOnly, audio: true },
  'gpt-4o-mini-audio-preview*': { ...textOnly, audio: true },
  'gpt-4o-search-preview*': { tools: false, structuredOutput: false },
  'gpt-4o-mini-search-preview*': { tools: false, structuredOutput: false },
  'gpt-4.1*': vision,
  'gpt-4.5*': { ...vision, contextWindow: 128_000, maxOutputTokens: 16_384 },
  'gpt-5*': reasoningModel,
  'gpt-5-chat*': { reasoning: false },
  'o1*': reasoningModel,
  'o1-mini*': { ...textOnly, tools: false, structuredOutput: false },
  'o3*': reasoningModel,
  'o3-mini*': textOnly,
  'o4-mini*': reasoningModel,
  'gpt-4-turbo*': { ...vision, structuredOutput: false },
  'gpt-4': { ...textOnly, structuredOutput: false },
  'gpt-4-0*': { ...textOnly, structuredOutput: false },
  'gpt-3.5*': { ...textOnly, structuredOutput: false },
};

/** The one glob matcher (`src/core/glob.ts`), re-exported for the OpenAI adapters. */
export { matchesAnyGlob, matchesGlob } from '../../core/glob.ts';
