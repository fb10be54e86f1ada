/** Whole Gemini `generateContent` responses → builder calls; finish reasons and usage (wire → canonical). */
import type { FinishReason } from '../../core/finish-reason.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { emptyUsage, tokenCount, type Usage, usageFromInclusive } from '../../core/usage.ts';
import type { ProviderContext } from '../common/definition.ts';
import { type GeminiResponse, type GeminiUsageMetadata } from './api.ts';
import { convertErrorBody } from './errors.ts';
import { ResponseReader } from './reader.ts';
import { isJsonObject } from '../../core/json.ts';

/**
 * Parses a `generateContent` body. An error envelope (also inside a 200) throws the classified
 * error; a JSON array (what `streamGenerateContent` returns without `alt=sse`) is read chunk by
 * chunk; a blocked prompt (`promptFeedback.blockReason`) becomes finish reason `content-filter`.
 */
export function parseResponse(body: unknown, context: ProviderContext, builder: StreamBuilder): void {
  const error = convertErrorBody(body);
  if (error !== undefined) context.fail(error, error.status);
  const chunks = Array.isArray(body) ? body : [body];
  // An invalid response (retryable, as the runtime classifies any unreadable body): an element
  // that is not an object, or a body without one field of a response (`{}`, another API's JSON).
  if (!chunks.every(isJsonObject) || !chunks.some(isResponseShaped)) {
    context.fail({
      code: 'invalid_response',
      message: `${context.model} returned a body that is not a generateContent response`,
    });
  }
  const reader = new ResponseReader(context, builder);
  for (const chunk of chunks) reader.read(chunk as GeminiResponse);
  // No candidate and no prompt block: nothing was answered, and no reason given (never an empty success).
  if (!reader.hasAnswer)
    context.fail({
      code: 'invalid_response',
      message: `${context.model} returned no candidate and no prompt feedback`,
    });
  reader.finish();
}

/** A chunk with at least one field of a `generateContent` response. */
function isResponseShaped(chunk: unknown): boolean {
  return (
    isJsonObject(chunk) &&
    ('candidates' in chunk || 'promptFeedback' in chunk || 'usageMetadata' in chunk || 'responseId' in chunk)
  );
}

/** Safety and policy stops: the output was withheld or cut by a filter. */
const contentFilterReasons = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Model failures: the model produced something unusable (a malformed or unexpected function call, a
 * missing signature). They map to `error` — without an exception: the call itself succeeded, the
 * partial content and `rawFinishReason` (plus `gemini.finishMessage`) are returned for the caller
 * (an agent loop may retry).
 */
const modelFailureReasons = new Set([
  'MALFORMED_FUNCTION_CALL',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
  'MISSING_THOUGHT_SIGNATURE',
  'MALFORMED_RESPONSE',
]);

/**
 * Maps a Gemini `finishReason`. `STOP` is `tool-call` when the response holds function calls
 * (Gemini has no separate value), else `completed` (a stop sequence also reports `STOP`).
 * `MAX_TOKENS` is `max-tokens`; filters are `content-filter`; model failures `error`; anything else
 * (`OTHER`, `LANGUAGE`, `NO_IMAGE`, unknown values, no value) is `other`.
 */
export function mapFinishReason(raw: string | null | undefined, hasToolCalls = false): FinishReason {
  if (typeof raw !== 'string') return 'other';
  if (raw === 'STOP') return hasToolCalls ? 'tool-call' : 'completed';
  if (raw === 'MAX_TOKENS') return 'max-tokens';
  if (contentFilterReasons.has(raw)) return 'content-filter';
  if (modelFailureReasons.has(raw)) return 'error';
  return 'other';
}

/** Vertex `trafficType` values that name a tier other providers name too. */
const trafficTiers: Record<string, string> = {
  ON_DEMAND: 'standard',
  ON_DEMAND_FLEX: 'flex',
  ON_DEMAND_PRIORITY: 'priority',
};

/**
 * The service tier a Vertex `usageMetadata.trafficType` says served the call: `standard`, `flex`,
 * `priority` for the pay-as-you-go kinds, another lower-cased (`provisioned_throughput`), none for
 * `TRAFFIC_TYPE_UNSPECIFIED` or a value that is no name. The Gemini API says its tier in a header
 * (`x-gemini-service-tier`, the definition's `serviceTierHeader`), not in the body.
 */
export function trafficTier(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === 'TRAFFIC_TYPE_UNSPECIFIED') return undefined;
  return trafficTiers[value] ?? value.toLowerCase();
}

/** True when the metadata carries token counts (some chunks hold only `trafficType`). */
export function hasUsageCounts(usage: GeminiUsageMetadata): boolean {
  return (
    typeof usage.promptTokenCount === 'number' ||
    typeof usage.candidatesTokenCount === 'number' ||
    typeof usage.thoughtsTokenCount === 'number'
  );
}

/**
 * Gemini counts → disjoint buckets. `promptTokenCount` includes the cached tokens
 * (`cachedContentTokenCount`), which are subtracted; `toolUsePromptTokenCount` is input too, and
 * kept as the input's `toolUsePrompt` (so a Gemini client gets it back as its own field).
 * `candidatesTokenCount` excludes thoughts, so output = candidates + thoughts and reasoning =
 * thoughts (then prompt + output = `totalTokenCount`). The `AUDIO` entries of `promptTokensDetails`
 * (less those of `cacheTokensDetails`), `cacheTokensDetails` and `candidatesTokensDetails` are
 * `audioInput`, `audioCacheRead` and `audioOutput` (priced apart); the other modalities are not
 * kept (the table has no image or video rates: priced as text). A count that is not a number counts as 0; no
 * metadata at all is all zero.
 */
export function convertUsage(usage: GeminiUsageMetadata | undefined): Usage {
  if (usage === undefined) return emptyUsage();
  const thoughts = count(usage.thoughtsTokenCount);
  const toolUse = count(usage.toolUsePromptTokenCount);
  const converted = usageFromInclusive({
    prompt: count(usage.promptTokenCount) + toolUse,
    cached: count(usage.cachedContentTokenCount),
    output: count(usage.candidatesTokenCount) + thoughts,
    reasoning: thoughts,
  });
  if (toolUse > 0) converted.toolUsePrompt = toolUse;
  // Audio, priced apart: the prompt's (cached included) less the cached content's, the cached, the candidates'.
  const cachedAudio = Math.min(modalityCount(usage.cacheTokensDetails, 'AUDIO'), converted.cacheRead);
  const promptAudio = Math.max(0, modalityCount(usage.promptTokensDetails, 'AUDIO') - cachedAudio);
  const audioInput = Math.min(promptAudio, converted.input);
  const audioOutput = Math.min(modalityCount(usage.candidatesTokensDetails, 'AUDIO'), converted.output);
  if (audioInput > 0) converted.audioInput = audioInput;
  if (cachedAudio > 0) converted.audioCacheRead = cachedAudio;
  if (audioOutput > 0) converted.audioOutput = audioOutput;
  return converted;
}

/** The tokens of `modality` in a Gemini per-modality list (`[{modality, tokenCount}]`); 0 without one. */
function modalityCount(details: unknown, modality: string): number {
  if (!Array.isArray(details)) return 0;
  let total = 0;
  for (const entry of details)
    if (isJsonObject(entry) && entry.modality === modality) total += count(entry.tokenCount);
  return total;
}

/** A token count by the one rule ({@link tokenCount}), or 0 when absent or invalid (a string count is not added as text). */
function count(value: unknown): number {
  return tokenCount(value) ?? 0;
}
