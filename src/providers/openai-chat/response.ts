/** Whole `chat.completion` bodies → builder calls (the same reader as the stream), finish reasons and usage. */
import type { FinishReason } from '../../core/finish-reason.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { emptyUsage, tokenCount, type Usage, usageFromInclusive } from '../../core/usage.ts';
import type { ProviderContext } from '../common/definition.ts';
import type { WireCompletion, WireUsage } from './api.ts';
import type { ChatQuirks } from './quirks.ts';
import { firstChoice, ResponseReader } from './reader.ts';

/**
 * Translates a complete response. An `error` object in a 200 body fails with the classified error;
 * a body with no choice fails as a retryable server error (`invalid_response`). Only the first
 * choice is read (Switchyard never asks for `n > 1`).
 */
export function parseResponse(
  body: unknown,
  context: ProviderContext,
  builder: StreamBuilder,
  quirks: ChatQuirks,
): void {
  const reader = new ResponseReader(context, builder, quirks);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    context.fail({ code: 'invalid_response', message: 'the response body is not a JSON object' });
  }
  const completion = body as WireCompletion;
  if (quirks.inBandErrors && completion.error !== undefined && completion.error !== null) {
    reader.fail(completion.error);
  }
  const choice = firstChoice(completion.choices);
  if (choice === undefined || choice === null) {
    context.fail({ code: 'invalid_response', message: 'the response has no choices' });
  }
  reader.read(completion, choice);
  reader.complete();
}

/**
 * Maps a `finish_reason` to the canonical set: `stop` → completed (tool-call when tool calls came
 * with it: some hosts say `stop` for them), `length` / `model_length` → max-tokens, `tool_calls` /
 * `function_call` → tool-call, `content_filter` → content-filter, `error` → error, anything else
 * (and no value) → other. The raw value is kept by the caller; a refusal that ends with a plain
 * `stop` is reported as `content-filter` by the reader, which knows it saw `refusal` text.
 */
export function mapFinishReason(raw: string | null | undefined, hasToolCalls = false): FinishReason {
  switch (raw) {
    case 'stop':
    case 'eos':
    case 'end_turn':
      return hasToolCalls ? 'tool-call' : 'completed';
    case 'stop_sequence':
      return 'stop-sequence';
    case 'length':
    case 'model_length':
    case 'max_tokens':
      return 'max-tokens';
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      return 'tool-call';
    case 'content_filter':
      return 'content-filter';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}

const count = tokenCount;

/** How a host counts usage (from its quirks). */
export interface UsageOptions {
  /**
   * The host counts reasoning tokens inside `completion_tokens` (OpenAI: the default, true); false
   * when it counts them outside (xAI), so they are added to the output.
   */
  reasoningInCompletion?: boolean;
}

/**
 * Converts wire usage into disjoint buckets (no usage → all zero). Cached prompt tokens
 * (`prompt_tokens_details.cached_tokens`, DeepSeek `prompt_cache_hit_tokens`, Moonshot top-level
 * `cached_tokens`) are subtracted from the prompt count; reasoning comes from
 * `completion_tokens_details.reasoning_tokens` and is added to the output when the host counts it
 * outside `completion_tokens` (`options.reasoningInCompletion: false`, xAI). The audio parts
 * (`prompt_tokens_details.audio_tokens`, `completion_tokens_details.audio_tokens`) are
 * `audioInput` / `audioOutput`; the prediction counts (`accepted_prediction_tokens`,
 * `rejected_prediction_tokens`) are parts of `completion_tokens`, billed as output, and not kept.
 */
export function convertUsage(usage: WireUsage | undefined, options: UsageOptions = {}): Usage {
  if (usage === undefined) return emptyUsage();
  const reasoningInCompletion = options.reasoningInCompletion ?? true;
  const details = usage.prompt_tokens_details ?? undefined;
  const hit = count(usage.prompt_cache_hit_tokens);
  const prompt = count(usage.prompt_tokens) ?? (hit ?? 0) + (count(usage.prompt_cache_miss_tokens) ?? 0);
  const cached = count(details?.cached_tokens) ?? hit ?? count(usage.cached_tokens) ?? 0;
  const completion = count(usage.completion_tokens) ?? 0;
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens) ?? 0;
  const converted = usageFromInclusive({
    prompt,
    cached,
    cacheWrite: count(details?.cache_write_tokens) ?? 0,
    // Reasoning is part of output. A host that reports more reasoning than completion tokens
    // evidently counts it outside the completion (as xAI does), whatever the quirk says.
    output: reasoningInCompletion && reasoning <= completion ? completion : completion + reasoning,
    reasoning,
  });
  // Audio parts (priced apart): of the uncached input (Chat names no cached audio), of the output.
  const audioInput = Math.min(count(details?.audio_tokens) ?? 0, converted.input);
  const audioOutput = Math.min(count(usage.completion_tokens_details?.audio_tokens) ?? 0, converted.output);
  if (audioInput > 0) converted.audioInput = audioInput;
  if (audioOutput > 0) converted.audioOutput = audioOutput;
  return converted;
}
