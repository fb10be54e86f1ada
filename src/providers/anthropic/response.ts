/** Whole Messages API responses (wire → canonical): content, stop reason, usage and message metadata. */
import type { FinishReason } from '../../core/finish-reason.ts';
import { isJsonObject, type JsonValue } from '../../core/json.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import {
  addModelUsages,
  emptyUsage,
  type ModelUsage,
  sumBuckets,
  searchCount,
  tokenCount,
  type Usage,
} from '../../core/usage.ts';
import { modelNameProblem } from '../../core/model-name.ts';
import type { ProviderContext } from '../common/definition.ts';
import type { WireResponseMessage, WireUsage } from './api.ts';
import { ResponseReader } from './reader.ts';
import { convertErrorBody } from './errors.ts';

/**
 * Anthropic `stop_reason` → canonical finish reason. `pause_turn` (a server-tool loop paused; send
 * the content back to continue) → `other`; `model_context_window_exceeded` (generation stopped at
 * the context window, not at `max_tokens`) → `max-tokens`, the closest canonical meaning;
 * `refusal` → `content-filter`; anything unknown → `other`. Callers keep the raw value. Anthropic
 * always says `tool_use` when it calls tools, so `hasToolCalls` (the shared signature) only turns an
 * `end_turn` that came with tool calls into `tool-call`.
 */
export function mapFinishReason(raw: string | null | undefined, hasToolCalls = false): FinishReason {
  switch (raw) {
    case 'end_turn':
      return hasToolCalls ? 'tool-call' : 'completed';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max-tokens';
    case 'stop_sequence':
      return 'stop-sequence';
    case 'tool_use':
      return 'tool-call';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

function count(value: number | null | undefined): number | undefined {
  return tokenCount(value);
}

/**
 * Anthropic usage → disjoint buckets (no usage → all zero). `input_tokens` already excludes cache
 * reads and writes, so each count maps to one bucket as is; `output_tokens_details.thinking_tokens`
 * is the reasoning part of the output; `server_tool_use.web_search_requests` is `webSearches`.
 */
export function convertUsage(usage: WireUsage | undefined, executor?: string): Usage {
  return addUsage(emptyUsage(), usage === undefined ? {} : convertUsageFields(usage, executor));
}

/**
 * The buckets one usage report holds, and only those: a stream's later report (`message_delta`)
 * overrides the earlier one (`message_start`) bucket by bucket.
 *
 * When `usage.iterations` is present (compaction, advisor, fallback), the top-level counts cover only
 * the last executor turn; Anthropic bills the sum of the iterations, so that sum is returned (the
 * per-iteration detail is kept as `anthropic.usage_iterations` metadata by `applyMessageFields`).
 */
export function convertUsageFields(usage: WireUsage, executor?: string): Partial<Usage> {
  const iterations = billedIterations(usage.iterations);
  const converted = iterations === undefined ? convertOne(usage) : sumIterations(iterations, executor);
  // The top-level count covers the whole response (iterations carry none): the executor's.
  const webSearches = webSearchRequests(usage.server_tool_use);
  if (webSearches !== undefined) converted.webSearches = webSearches;
  return converted;
}

/** `server_tool_use.web_search_requests`: the web searches Anthropic bills per search. */
function webSearchRequests(serverToolUse: JsonValue | undefined): number | undefined {
  return isJsonObject(serverToolUse) ? searchCount(serverToolUse.web_search_requests) : undefined;
}

/** The iterations array when it holds at least one usage object; otherwise undefined. */
function billedIterations(value: JsonValue | undefined): WireUsage[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const usages = value.filter((item) => isJsonObject(item)) as WireUsage[];
  return usages.length > 0 ? usages : undefined;
}

const tokenBuckets = ['input', 'cacheRead', 'cacheWrite', 'output', 'reasoning'] as const;

/**
 * Sums the iterations per model: those of the executor (`executor`, the response's `model`; an
 * iteration without `model` is the executor's, compaction included) make the top-level buckets;
 * each other model's (an `advisor_message` on Opus, the model a `fallback_message` replaced) go to
 * `byModel['anthropic:<model>']`, priced at that model's rate by the pricer.
 */
function sumIterations(iterations: WireUsage[], given?: string): Partial<Usage> {
  // After a fallback the model that answered is the fallback_message's (a stream's message_start
  // still names the model asked for).
  const fallback = iterations.findLast(
    (iteration) => (iteration as { type?: unknown }).type === 'fallback_message',
  ) as { model?: unknown } | undefined;
  const executor = typeof fallback?.model === 'string' ? fallback.model : given;
  const total: Partial<Usage> = {};
  let byModel: Record<string, ModelUsage> | undefined;
  for (const iteration of iterations) {
    const converted = convertOne(iteration);
    const model = (iteration as { model?: unknown }).model;
    const own = typeof model !== 'string' || executor === undefined || model === executor;
    if (own) {
      addBuckets(total, converted);
      continue;
    }
    const id = `anthropic:${modelNameProblem(model, 'anthropic-messages') === undefined ? model : 'unknown-model'}`;
    byModel ??= {};
    const entry = (byModel[id] ??= { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 });
    addBuckets(entry, converted);
  }
  if (byModel !== undefined) total.byModel = byModel;
  return total;
}

function addBuckets(target: Partial<Usage>, converted: Partial<Usage>): void {
  for (const key of tokenBuckets) {
    const value = converted[key];
    if (value !== undefined) target[key] = (target[key] ?? 0) + value;
  }
  if (converted.cacheWrite1h !== undefined)
    target.cacheWrite1h = (target.cacheWrite1h ?? 0) + converted.cacheWrite1h;
}

function convertOne(usage: WireUsage): Partial<Usage> {
  const converted: Partial<Usage> = {};
  const input = count(usage.input_tokens);
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  const cacheWrite1h = count(usage.cache_creation?.ephemeral_1h_input_tokens);
  const output = count(usage.output_tokens);
  const reasoning = count(usage.output_tokens_details?.thinking_tokens);
  if (input !== undefined) converted.input = input;
  if (cacheRead !== undefined) converted.cacheRead = cacheRead;
  if (cacheWrite !== undefined) converted.cacheWrite = cacheWrite;
  if (cacheWrite1h !== undefined && cacheWrite1h > 0) converted.cacheWrite1h = cacheWrite1h;
  if (output !== undefined) converted.output = output;
  if (reasoning !== undefined) converted.reasoning = reasoning;
  return converted;
}

/** Adds two usages bucket by bucket (several messages in one body). */
export function addUsage(left: Usage, right: Partial<Usage>): Usage {
  const byModel = addModelUsages(left.byModel, right.byModel);
  const sum: Usage = sumBuckets(left, right);
  if (byModel !== undefined) sum.byModel = byModel;
  return sum;
}

/** The message-level fields shared by a whole message, `message_start` and `message_delta`. */
export interface MessageFields {
  stop_reason?: string | null;
  stop_sequence?: string | null;
  stop_details?: JsonValue;
  container?: JsonValue;
  context_management?: JsonValue;
}

function setPresent(builder: StreamBuilder, key: string, value: JsonValue | undefined): void {
  if (value !== undefined && value !== null) builder.setMetadata(key, value);
}

/**
 * Records the stop reason (mapped, raw kept) and the metadata worth keeping: `anthropic.stop_sequence`
 * (the matched sequence), `anthropic.stop_details` (refusal category…), `anthropic.container`,
 * `anthropic.context_management`, and from usage `anthropic.usage_iterations` (compaction, advisor,
 * fallback iterations), `anthropic.server_tool_use` (server tool request counts) and the service
 * tier that served the call (`usage.service_tier` → `Usage.serviceTier`). `directToolCalls`: the
 * reply holds a tool call the client is to run (`ResponseReader.hasDirectToolCalls`), so an
 * `end_turn` beside it is `tool-call`, as `mapFinishReason` says.
 */
export function applyMessageFields(
  builder: StreamBuilder,
  fields: MessageFields,
  usage: WireUsage | null | undefined,
  directToolCalls: boolean,
): void {
  if (typeof fields.stop_reason === 'string')
    builder.setFinish(mapFinishReason(fields.stop_reason, directToolCalls), fields.stop_reason);
  setPresent(builder, 'anthropic.stop_sequence', fields.stop_sequence ?? undefined);
  setPresent(builder, 'anthropic.stop_details', fields.stop_details);
  setPresent(builder, 'anthropic.container', fields.container);
  setPresent(builder, 'anthropic.context_management', fields.context_management);
  setPresent(builder, 'anthropic.usage_iterations', usage?.iterations);
  setPresent(builder, 'anthropic.server_tool_use', usage?.server_tool_use);
  if (usage?.service_tier !== undefined) builder.serviceTier(usage.service_tier);
}

/**
 * Parses a whole message (`complete()`, or a JSON body answering a streaming call) through the same
 * block handlers as the stream. An error object in a 200 body throws the classified error.
 */
export function parseResponse(body: unknown, context: ProviderContext, builder: StreamBuilder): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    context.fail({ code: 'invalid_response', message: 'the response body is not a message object' });
  }
  const message = body as WireResponseMessage;
  if (message.type === 'error') {
    context.fail(convertErrorBody(message) ?? { message: 'error response without details' });
  }
  if (!Array.isArray(message.content)) {
    // `{}` or another API's JSON: not a message, so not an empty answer either.
    context.fail({ code: 'invalid_response', message: 'the response body has no content array' });
  }
  builder.start(withDefined({ responseId: message.id, model: message.model }));
  const blocks = new ResponseReader(context, builder);
  message.content.forEach((block, index) => {
    blocks.whole(index, block);
  });
  const usage = isJsonObject(message.usage) ? (message.usage as WireUsage) : undefined;
  applyMessageFields(builder, message, usage, blocks.hasDirectToolCalls);
  if (usage !== undefined) builder.usage(convertUsage(usage, message.model));
}

/** Drops undefined fields (the builder distinguishes absent from undefined). */
export function withDefined(fields: { responseId?: string; model?: string }): {
  responseId?: string;
  model?: string;
} {
  const result: { responseId?: string; model?: string } = {};
  if (typeof fields.responseId === 'string') result.responseId = fields.responseId;
  if (typeof fields.model === 'string') result.model = fields.model;
  return result;
}
