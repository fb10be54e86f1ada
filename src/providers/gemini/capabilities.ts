/** What each Gemini model supports as served by this adapter: a baseline and glob rows (one matcher). */
import { applyModelRows, type Capabilities, type ModelCapabilities } from '../../core/capabilities.ts';
import { withCatalog } from '../../core/catalog.ts';
import { lastMatchingRow } from '../../core/glob.ts';
import { catalog } from '../catalog/gemini.generated.ts';

/** Image types the Gemini API takes (`inlineData` / `fileData`). */
export const imageMediaTypes = ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif'] as const;

/** Audio types the Gemini API takes (its audio-understanding guide; `audio/mpeg` and `audio/x-wav` are aliases). */
export const audioMediaTypes = [
  'audio/wav',
  'audio/x-wav',
  'audio/mp3',
  'audio/mpeg',
  'audio/aiff',
  'audio/aac',
  'audio/ogg',
  'audio/flac',
] as const;

/** Document types the Gemini API takes (its document-processing guide: PDF, and text formats). */
export const documentMediaTypes = [
  'application/pdf',
  'text/*',
  'application/json',
  'application/rtf',
  'application/x-javascript',
  'application/x-typescript',
  'application/x-python-code',
] as const;

/**
 * Shared by every model: media, tools, streaming, system instructions. Limits are unknown (0, not
 * checked locally) until a row or the catalog says. The Gemini API streams each function call
 * whole (only Vertex streams argument fragments), so `streamingToolCalls` is false. Structured
 * output with function tools in one request is Gemini 3's (its structured-output guide); earlier
 * models answer 400 "Function calling with a response mime type: 'application/json' is
 * unsupported", so the adapter asks them for the answer as a function call (`answer-function.ts`).
 */
const base: Capabilities = {
  images: true,
  audio: true,
  video: true,
  pdf: true,
  reasoning: false,
  tools: true,
  parallelToolCalls: true,
  structuredOutput: true,
  structuredOutputWithTools: false,
  streaming: true,
  streamingToolCalls: false,
  promptCaching: false,
  systemPrompt: true,
  contextWindow: 0,
  maxOutputTokens: 0,
  imageMediaTypes,
  audioMediaTypes,
  documentMediaTypes,
};

const thinking = { reasoning: true, promptCaching: true };
const gemini3 = {
  ...thinking,
  structuredOutputWithTools: true,
  contextWindow: 1_048_576,
  maxOutputTokens: 65_536,
};

/**
 * Rows keyed by glob over the wire name, general first (later keys win), following Google's model
 * cards. Token limits come from the models.dev catalog (`src/providers/catalog/gemini.generated.ts`)
 * for the models it lists; rows carry limits only for families the snapshot lacks (Gemini 3, image
 * generation, Gemma), so no number is kept in two places. Image-generation variants (`*-image*`)
 * answer with images and take no tools, schemas or cache. Gemma 3 models on the Gemini API answer 400 to a system instruction ("Developer instruction
 * is not enabled"), to function calling and to JSON mode.
 */
export const geminiModelCapabilities: ModelCapabilities = {
  'gemini-1.5-flash*': { promptCaching: true },
  'gemini-1.5-flash-8b*': { promptCaching: false },
  'gemini-1.5-pro*': { promptCaching: true },
  'gemini-2.0-flash*': { promptCaching: true },
  'gemini-2.0-flash-lite*': { promptCaching: false },
  'gemini-2.5-pro*': thinking,
  'gemini-2.5-flash*': thinking,
  'gemini-3*-pro*': gemini3,
  'gemini-3*-flash*': gemini3,
  'gemini-*-pro-image*': imageGeneration(),
  'gemini-*-flash-image*': imageGeneration(),
  'gemma-3*': {
    audio: false,
    video: false,
    pdf: false,
    tools: false,
    parallelToolCalls: false,
    structuredOutput: false,
    systemPrompt: false,
    contextWindow: 131_072,
    maxOutputTokens: 8_192,
  },
};

function imageGeneration(): Partial<Capabilities> {
  return {
    audio: false,
    video: false,
    tools: false,
    parallelToolCalls: false,
    structuredOutput: false,
    promptCaching: false,
    contextWindow: 65_536,
    maxOutputTokens: 32_768,
    reasoning: true,
  };
}

function tableCapabilities(model: string): Capabilities {
  const resolved = { ...base };
  applyModelRows(resolved, geminiModelCapabilities, model);
  return resolved;
}

const withCatalogRows = withCatalog(tableCapabilities, catalog);

/** Capabilities of a wire model name (a `models/` prefix is accepted): its rows, with the catalog row's limits. */
export function capabilitiesFor(model: string): Capabilities {
  return withCatalogRows(model.replace(/^models\//, ''));
}

/** The least thinking a model allows, as `thinkingConfig` says it. */
export type LeastThinking = { thinkingBudget: number } | { thinkingLevel: string };

/**
 * The least thinking of each thinking model (glob rows, later keys win; Google's thinking guide):
 * Gemini 2.5 Flash and Flash-Lite turn thinking off with budget 0; 2.5 Pro cannot, its floor is
 * budget 128; Gemini 3 takes levels and cannot turn thinking off — Pro's least is `low`, Flash's
 * `minimal`. A model without a row has no thinking to control.
 */
export const leastThinking: Readonly<Record<string, LeastThinking>> = {
  'gemini-2.5-pro*': { thinkingBudget: 128 },
  'gemini-2.5-flash*': { thinkingBudget: 0 },
  'gemini-3*-pro*': { thinkingLevel: 'low' },
  'gemini-3*-flash*': { thinkingLevel: 'minimal' },
};

/** The least thinking of a wire model name (a `models/` prefix is accepted), if it thinks. */
export function leastThinkingFor(model: string): LeastThinking | undefined {
  return lastMatchingRow(leastThinking, model.replace(/^models\//, ''));
}
