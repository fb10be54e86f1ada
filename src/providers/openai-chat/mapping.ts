/** Wire → canonical mappings shared by whole responses and streams: finish reasons and token usage. */
import type { FinishReason } from '../../core/finish-reason.ts';
import { type Usage, usageFromInclusive } from '../../core/usage.ts';
import type { WireUsage } from './api.ts';

/** What else the response held, which refines a plain `stop`. */
export interface FinishContext {
  /** The response carried tool calls (some hosts say `stop` for them). */
  toolCalls: boolean;
  /** The model refused (`refusal` text): reported as `content-filter`. */
  refusal: boolean;
}

/**
 * Maps a `finish_reason` to the canonical set: `stop` → completed (tool-call when tool calls came
 * with it, content-filter for a refusal), `length` / `model_length` → max-tokens, `tool_calls` /
 * `function_call` → tool-call, `content_filter` → content-filter, `error` → error, anything else →
 * other. The raw value is kept by the caller.
 */
export function mapFinishReason(
  raw: string,
  context: FinishContext = { toolCalls: false, refusal: false },
): FinishReason {
  switch (raw) {
    case 'stop':
    case 'eos':
    case 'end_turn':
      if (context.refusal) return 'content-filter';
      return context.toolCalls ? 'tool-call' : 'completed';
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

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.round(value)) : undefined;
}

/**
 * Converts wire usage into disjoint buckets. Cached prompt tokens (`prompt_tokens_details.cached_tokens`,
 * DeepSeek `prompt_cache_hit_tokens`, Moonshot top-level `cached_tokens`) are subtracted from the
 * prompt count; reasoning comes from `completion_tokens_details.reasoning_tokens` and is added to
 * the output when the host counts it outside `completion_tokens` (xAI).
 */
export function convertUsage(usage: WireUsage, reasoningInCompletion = true): Usage {
  const details = usage.prompt_tokens_details ?? undefined;
  const hit = count(usage.prompt_cache_hit_tokens);
  const prompt = count(usage.prompt_tokens) ?? (hit ?? 0) + (count(usage.prompt_cache_miss_tokens) ?? 0);
  const cached = count(details?.cached_tokens) ?? hit ?? count(usage.cached_tokens) ?? 0;
  const completion = count(usage.completion_tokens) ?? 0;
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens) ?? 0;
  return usageFromInclusive({
    prompt,
    cached,
    cacheWrite: count(details?.cache_write_tokens) ?? 0,
    // Reasoning is part of output. A host that reports more reasoning than completion tokens
    // evidently counts it outside the completion (as xAI does), whatever the quirk says.
    output: reasoningInCompletion && reasoning <= completion ? completion : completion + reasoning,
    reasoning,
  });
}
