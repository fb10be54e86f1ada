/** What each Gemini model supports as served by this adapter: a baseline and glob rows (one matcher). */
import { applyModelRows, type Capabilities, type ModelCapabilities } from '../../core/capabilities.ts';

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
 * whole (only Vertex streams argument fragments), so `streamingToolCalls` is false.
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

const thinking = { reasoning: true, promptCaching: true, contextWindow: 1_048_576, maxOutputTokens: 65_536 };
const flash = { contextWindow: 1_048_576, maxOutputTokens: 8_192 };

/**
 * Rows keyed by glob over the wire name, general first (later keys win), following Google's model
 * cards. Image-generation variants (`*-image*`) answer with images and take no tools, schemas or
 * cache. Gemma models on the Gemini API take no system instruction, function calling or JSON mode.
 */
export const geminiModelCapabilities: ModelCapabilities = {
  'gemini-1.5-flash*': { ...flash, promptCaching: true },
  'gemini-1.5-flash-8b*': { promptCaching: false },
  'gemini-1.5-pro*': { promptCaching: true, contextWindow: 2_097_152, maxOutputTokens: 8_192 },
  'gemini-2.0-flash*': { ...flash, promptCaching: true },
  'gemini-2.0-flash-lite*': { promptCaching: false },
  'gemini-2.5-pro*': thinking,
  'gemini-2.5-flash*': thinking,
  'gemini-3*-pro*': thinking,
  'gemini-3*-flash*': thinking,
  'gemini-*-pro-image*': imageGeneration(),
  'gemini-*-flash-image*': imageGeneration(),
  'gemma-*': {
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

/** Capabilities of a wire model name (a `models/` prefix is accepted). */
export function capabilitiesFor(model: string): Capabilities {
  const resolved = { ...base };
  applyModelRows(resolved, geminiModelCapabilities, model.replace(/^models\//, ''));
  return resolved;
}
