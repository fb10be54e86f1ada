/** What each Gemini model family supports as served by this adapter (honest, per family). */
import type { Capabilities } from '../../core/capabilities.ts';

/** Image types the Gemini API takes as `inlineData`. */
export const imageMediaTypes = ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif'] as const;

const multimodal = { images: true, audio: true, video: true, pdf: true };

/** Shared by every family: streaming, system instructions and parallel calls are universal. */
const base: Capabilities = {
  ...multimodal,
  reasoning: false,
  tools: true,
  parallelToolCalls: true,
  structuredOutput: true,
  streaming: true,
  // The Gemini API streams each function call whole; only Vertex streams argument fragments.
  streamingToolCalls: false,
  promptCaching: false,
  systemPrompt: true,
  contextWindow: 1_048_576,
  maxOutputTokens: 8192,
  imageMediaTypes,
};

interface Family {
  /** Matched against the wire model name; the first matching family wins. */
  pattern: RegExp;
  capabilities: Partial<Capabilities>;
}

const thinking = { reasoning: true, promptCaching: true, maxOutputTokens: 65_536 };

/**
 * Families, most specific first. Image-generation variants (`*-image*`) answer with images and
 * take no tools, schemas or cache; text models below follow Google's published model cards.
 */
const families: readonly Family[] = [
  {
    pattern: /gemini-[\d.]+-(pro|flash)-image/,
    capabilities: {
      audio: false,
      video: false,
      tools: false,
      parallelToolCalls: false,
      structuredOutput: false,
      contextWindow: 65_536,
      maxOutputTokens: 32_768,
      reasoning: true,
    },
  },
  { pattern: /gemini-3(\.\d+)?-(pro|flash)/, capabilities: thinking },
  { pattern: /gemini-2\.5-(pro|flash)/, capabilities: thinking },
  { pattern: /gemini-2\.0-flash-lite/, capabilities: {} },
  { pattern: /gemini-2\.0-flash/, capabilities: { promptCaching: true } },
  { pattern: /gemini-1\.5-pro/, capabilities: { promptCaching: true, contextWindow: 2_097_152 } },
  { pattern: /gemini-1\.5-flash-8b/, capabilities: {} },
  { pattern: /gemini-1\.5-flash/, capabilities: { promptCaching: true } },
];

/**
 * Capabilities of a wire model name. Unknown names get the conservative baseline: 1M context,
 * 8,192 output tokens, no thinking and no explicit cache.
 */
export function capabilitiesFor(model: string): Capabilities {
  const family = families.find((candidate) => candidate.pattern.test(model));
  return { ...base, ...family?.capabilities };
}
