/** Gemini finish reasons and usage counts → canonical finish reasons and disjoint usage buckets. */
import type { FinishReason } from '../../core/finish-reason.ts';
import { type Usage, usageFromInclusive } from '../../core/usage.ts';
import type { GeminiUsageMetadata } from './api.ts';

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
 * (`OTHER`, `LANGUAGE`, `NO_IMAGE`, unknown values) is `other`.
 */
export function mapFinishReason(raw: string, hasToolCalls: boolean): FinishReason {
  if (raw === 'STOP') return hasToolCalls ? 'tool-call' : 'completed';
  if (raw === 'MAX_TOKENS') return 'max-tokens';
  if (contentFilterReasons.has(raw)) return 'content-filter';
  if (modelFailureReasons.has(raw)) return 'error';
  return 'other';
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
 * (`cachedContentTokenCount`), which are subtracted; `toolUsePromptTokenCount` is input too.
 * `candidatesTokenCount` excludes thoughts, so output = candidates + thoughts and reasoning =
 * thoughts (then prompt + output = `totalTokenCount`). A count that is not a number counts as 0.
 */
export function convertUsage(usage: GeminiUsageMetadata): Usage {
  const thoughts = count(usage.thoughtsTokenCount);
  return usageFromInclusive({
    prompt: count(usage.promptTokenCount) + count(usage.toolUsePromptTokenCount),
    cached: count(usage.cachedContentTokenCount),
    output: count(usage.candidatesTokenCount) + thoughts,
    reasoning: thoughts,
  });
}

/** A token count as sent, or 0 when absent or not a number (a string count is not added as text). */
function count(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}
