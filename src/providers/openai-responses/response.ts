/** A whole `response` body → builder calls; finish reasons and usage shared with the stream. */
import type { FinishReason } from '../../core/finish-reason.ts';
import { isJsonObject, jsonTypeName } from '../../core/json.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { tokenCount, type Usage, usageFromInclusive } from '../../core/usage.ts';
import type { ProviderContext } from '../common/definition.ts';
import type { WireResponse, WireUsage } from './api.ts';
import { ResponseReader } from './reader.ts';

/**
 * Maps a response's `status` or `incomplete_details.reason` to the canonical set: `completed` →
 * completed (tool-call when the response carried function calls), `max_output_tokens` →
 * max-tokens, `content_filter` → content-filter, `failed` / `cancelled` → error / cancelled,
 * anything else (and no value) → other. The raw value is kept by the caller.
 */
export function mapFinishReason(raw: string | null | undefined, hasToolCalls = false): FinishReason {
  switch (raw) {
    case 'completed':
      return hasToolCalls ? 'tool-call' : 'completed';
    case 'max_output_tokens':
    case 'max_tokens':
      return 'max-tokens';
    case 'content_filter':
      return 'content-filter';
    case 'failed':
      return 'error';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'other';
  }
}

const count = tokenCount;

/**
 * Converts wire usage into disjoint buckets: `input_tokens_details.cached_tokens` is subtracted from
 * the input; `output_tokens_details.reasoning_tokens` is reasoning (added to the output when a host
 * reports more reasoning than output tokens, i.e. counts it outside).
 */
export function convertUsage(usage: WireUsage | undefined): Usage {
  const reasoning = count(usage?.output_tokens_details?.reasoning_tokens) ?? 0;
  const output = count(usage?.output_tokens) ?? 0;
  return usageFromInclusive({
    prompt: count(usage?.input_tokens) ?? 0,
    cached: count(usage?.input_tokens_details?.cached_tokens) ?? 0,
    cacheWrite: 0,
    output: reasoning <= output ? output : output + reasoning,
    reasoning,
  });
}

/**
 * Translates a complete response: every output item, then usage and the finish reason. A body with
 * an `error` object (or `status: failed`) fails with the classified error.
 */
export function parseResponse(body: unknown, context: ProviderContext, builder: StreamBuilder): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    context.fail({ code: 'invalid_response', message: 'the response body is not a JSON object' });
  }
  const response = body as WireResponse;
  const reader = new ResponseReader(context, builder);
  if (response.error !== undefined && response.error !== null && response.status !== 'completed') {
    reader.fail(response.error);
  }
  if (!Array.isArray(response.output)) {
    context.fail({ code: 'invalid_response', message: 'the response has no output array' });
  }
  reader.start(response);
  response.output.forEach((item, index) => {
    // An entry that is no item (null, a string) carries nothing to keep: skipped, said.
    if (isJsonObject(item)) reader.item(index, item);
    else
      context.warn('skipped unexpected stream content', { what: `output[${index}], ${jsonTypeName(item)}` });
  });
  reader.terminal(response);
}
