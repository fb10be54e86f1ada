/** Honest capability declarations and the pre-flight check against a request. */
import { InvalidRequestError } from './errors/invalid-request-error.ts';
import type { CanonicalRequest } from './request.ts';
import type { Part } from './transcript.ts';

/** What a model, as served by this adapter, actually supports. */
export interface Capabilities {
  images: boolean;
  audio: boolean;
  video: boolean;
  pdf: boolean;
  reasoning: boolean;
  tools: boolean;
  parallelToolCalls: boolean;
  structuredOutput: boolean;
  streaming: boolean;
  streamingToolCalls: boolean;
  promptCaching: boolean;
  systemPrompt: boolean;
  contextWindow: number;
  maxOutputTokens: number;
  imageMediaTypes: readonly string[];
}

/** A capability that a request needs. */
export type CapabilityName =
  'images' | 'audio' | 'video' | 'pdf' | 'reasoning' | 'tools' | 'parallelToolCalls' | 'structuredOutput';

/** The capabilities a request needs, derived from its content and options. */
export function requiredCapabilities(request: CanonicalRequest): Set<CapabilityName> {
  const needed = new Set<CapabilityName>();
  if ((request.tools?.length ?? 0) > 0) needed.add('tools');
  if (request.parallelToolCalls === true) needed.add('parallelToolCalls');
  if (request.outputSchema !== undefined) needed.add('structuredOutput');
  if (request.reasoning !== undefined) needed.add('reasoning');
  for (const item of request.transcript) addPartNeeds(item.parts, needed);
  return needed;
}

function addPartNeeds(parts: readonly Part[], needed: Set<CapabilityName>): void {
  for (const part of parts) {
    if (part.type === 'media') {
      if (part.modality === 'image') needed.add('images');
      else if (part.modality === 'audio') needed.add('audio');
      else if (part.modality === 'video') needed.add('video');
    } else if (part.type === 'file') {
      if (part.mimeType === 'application/pdf') needed.add('pdf');
      else if (part.mimeType.startsWith('image/')) needed.add('images');
    } else if (part.type === 'tool-result' && part.output.type === 'parts') {
      addPartNeeds(part.output.parts, needed);
    }
  }
}

/**
 * Throws an `InvalidRequestError` (code `unsupported_capability`) before any HTTP call when the
 * request needs something the model lacks, and rejects a `maxOutputTokens` that is not a positive
 * integer. (A limit above the model's maximum is left to the provider, whose tables move faster.)
 */
export function assertCapabilities(
  request: CanonicalRequest,
  capabilities: Capabilities,
  context: { provider: string; model: string },
): void {
  const missing = [...requiredCapabilities(request)].filter((name) => !capabilities[name]);
  if (missing.length > 0) {
    throw new InvalidRequestError({
      message: `${context.provider}: model ${context.model} does not support ${missing.join(', ')}`,
      providerCode: 'unsupported_capability',
      provider: context.provider,
      requestId: request.requestId,
    });
  }
  if (!(request.maxOutputTokens > 0) || !Number.isInteger(request.maxOutputTokens)) {
    throw new InvalidRequestError({
      message: `${context.provider}: maxOutputTokens must be a positive integer, got ${request.maxOutputTokens}`,
      provider: context.provider,
      requestId: request.requestId,
    });
  }
}
