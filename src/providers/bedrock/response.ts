/** Converse response body → canonical response: content, stop reason, usage. */
import type { FinishReason } from '../../core/finish-reason.ts';
import { isJsonObject, type JsonValue } from '../../core/json.ts';
import { stopSequenceKey } from '../../core/metadata.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { tokenCount, type Usage } from '../../core/usage.ts';
import type { ProviderContext } from '../common/definition.ts';
import { type WireResponse, type WireUsage } from './api.ts';
import { convertErrorBody } from './errors.ts';
import { ResponseReader } from './reader.ts';

/**
 * `stopReason` → finish reason: end_turn → completed, tool_use → tool-call, max_tokens and
 * model_context_window_exceeded → max-tokens, stop_sequence → stop-sequence, guardrail_intervened
 * and content_filtered → content-filter; unknown values → other.
 */
export function mapFinishReason(raw: unknown, hasToolCalls = false): FinishReason {
  switch (raw) {
    case 'end_turn':
      return hasToolCalls ? 'tool-call' : 'completed';
    case 'tool_use':
      return 'tool-call';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max-tokens';
    case 'stop_sequence':
      return 'stop-sequence';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content-filter';
    default:
      return 'other';
  }
}

/**
 * Converse usage → canonical buckets. `inputTokens` excludes the cache reads and writes (reported
 * apart, as `cacheReadInputTokens` / `cacheWriteInputTokens`, older bodies `…Count`), so the
 * buckets are already disjoint. Reasoning is not reported apart (0).
 */
export function convertUsage(usage: WireUsage | undefined): Partial<Usage> {
  if (!isJsonObject(usage)) return {};
  const converted: Partial<Usage> = {};
  const input = tokenCount(usage.inputTokens);
  const output = tokenCount(usage.outputTokens);
  const cacheRead = tokenCount(usage.cacheReadInputTokens ?? usage.cacheReadInputTokenCount);
  const cacheWrite = tokenCount(usage.cacheWriteInputTokens ?? usage.cacheWriteInputTokenCount);
  if (input !== undefined) converted.input = input;
  if (output !== undefined) converted.output = output;
  if (cacheRead !== undefined) converted.cacheRead = cacheRead;
  if (cacheWrite !== undefined) converted.cacheWrite = cacheWrite;
  return converted;
}

/**
 * Records the stop reason (raw value kept) on the builder. `droppedCalls`: the reader dropped the
 * reply's tool calls (the request forbade them, `no-tool-calls.ts`), so a stop to call a tool is
 * the end of the answer, `completed`.
 */
export function applyStopReason(builder: StreamBuilder, raw: unknown, droppedCalls = false): void {
  if (typeof raw !== 'string') return;
  const finish =
    raw === 'tool_use' && droppedCalls && !builder.hasToolCalls
      ? 'completed'
      : mapFinishReason(raw, builder.hasToolCalls);
  builder.setFinish(finish, raw);
}

/**
 * The tier Bedrock says served the call (`serviceTier.type`: `default`, `priority`, `flex`,
 * `reserved`), given to the builder before the usage it goes with.
 */
export function applyServiceTier(builder: StreamBuilder, body: Record<string, unknown>): void {
  const tier = body.serviceTier;
  if (isJsonObject(tier)) builder.serviceTier(tier.type);
}

/**
 * Keeps the response-level fields a caller may need: metrics, trace, additional model fields. The
 * stop sequence a Claude model stopped at (`additionalModelResponseFields.stop_sequence`, in the
 * whole body and in `messageStop`) is also the response's `stopSequenceKey`, which an Anthropic
 * client gets as `stop_sequence`.
 */
export function applyResponseFields(builder: StreamBuilder, body: Record<string, unknown>): void {
  for (const field of ['metrics', 'trace', 'additionalModelResponseFields', 'performanceConfig'] as const) {
    if (body[field] !== undefined) builder.setMetadata(`bedrock.${field}`, body[field] as JsonValue);
  }
  const fields = body.additionalModelResponseFields;
  const matched = isJsonObject(fields) ? fields.stop_sequence : undefined;
  if (typeof matched === 'string' && matched !== '') builder.setMetadata(stopSequenceKey, matched);
}

/** A whole Converse body into builder calls; an error body (a 200 `{message}`) throws the classified error. */
export function parseResponse(body: unknown, context: ProviderContext, builder: StreamBuilder): void {
  const response = (isJsonObject(body) ? body : {}) as WireResponse & Record<string, unknown>;
  if (!isJsonObject(response.output)) {
    const error = convertErrorBody(body);
    if (error !== undefined) context.fail(error);
    throw new TypeError('a Converse body without output');
  }
  builder.start();
  const message = isJsonObject(response.output.message) ? response.output.message : {};
  const content = Array.isArray(message.content) ? message.content : [];
  const reader = new ResponseReader(context, builder);
  content.forEach((block, index) => reader.whole(index, block));
  applyStopReason(builder, response.stopReason, reader.droppedCalls);
  applyServiceTier(builder, response);
  builder.usage(convertUsage(response.usage));
  applyResponseFields(builder, response);
}
