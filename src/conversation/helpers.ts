/** Helpers for everyone: a response's text and tool calls, transcript items from responses and tool results, usage addition. */
import type { JsonValue } from '../core/json.ts';
import type { CanonicalResponse } from '../core/request.ts';
import type { Item, Part, ToolCallPart, ToolOutput, ToolResultPart } from '../core/transcript.ts';
import { sumBuckets, addModelUsages, type Usage } from '../core/usage.ts';
import { addCosts } from '../pricing/cost.ts';
import { isMarkedOutput, normalizeToolReturn, type ToolReturn } from '../schemas/tool-output.ts';

/**
 * The assistant item that records `response` in a transcript: its content, with model, provider,
 * request id and usage (with cost) kept in metadata under `switchyard.*`.
 */
export function assistantItem(response: CanonicalResponse): Item {
  const metadata: Record<string, JsonValue> = {
    'switchyard.model': response.model,
    'switchyard.provider': response.provider,
    'switchyard.requestId': response.requestId,
    'switchyard.usage': response.usage as unknown as JsonValue,
  };
  return { kind: 'assistant', parts: response.content, metadata };
}

/**
 * What a tool returned: text, any JSON value, content parts, or whatever a tool's `execute`
 * returns (a `toolOutput.*` result keeps its error flag; `undefined` is an empty text).
 */
export type ToolResultValue = ToolReturn | { type: 'parts'; parts: Part[] };

/** A tool-result part answering `call` (the output as text, JSON, or parts). */
export function toolResultPart(
  call: Pick<ToolCallPart, 'id' | 'name'>,
  output: ToolResultValue,
  options: { isError?: boolean } = {},
): ToolResultPart {
  if (isMarkedOutput(output)) {
    const normalized = normalizeToolReturn(output);
    return {
      type: 'tool-result',
      callId: call.id,
      name: call.name,
      output: normalized.output,
      isError: options.isError ?? normalized.isError,
    };
  }
  return {
    type: 'tool-result',
    callId: call.id,
    name: call.name,
    output: toToolOutput(output),
    isError: options.isError ?? false,
  };
}

/** A tool item holding one result per call. */
export function toolResultItem(
  results: ReadonlyArray<{
    call: Pick<ToolCallPart, 'id' | 'name'>;
    output: ToolResultValue;
    isError?: boolean;
  }>,
): Item {
  return { kind: 'tool', parts: results.map((result) => toolResultPart(result.call, result.output, result)) };
}

function toToolOutput(output: ToolResultValue): ToolOutput {
  if (typeof output === 'string') return { type: 'text', text: output };
  if (output === undefined) return { type: 'text', text: '' };
  if (isPartsOutput(output)) return { type: 'parts', parts: output.parts };
  return { type: 'json', value: output as JsonValue };
}

function isPartsOutput(value: unknown): value is { type: 'parts'; parts: Part[] } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'parts' &&
    Array.isArray((value as { parts?: unknown }).parts)
  );
}

/**
 * Adds two usages bucket by bucket. The cost is the sum when both are known in one currency;
 * otherwise it is left out (a partial sum would understate the spend). An empty usage without
 * cost (the start of a running total) adds nothing.
 */
export function addUsage(left: Usage, right: Usage): Usage {
  const sum: Usage = sumBuckets(left, right);
  const byModel = addModelUsages(left.byModel, right.byModel);
  if (byModel !== undefined) sum.byModel = byModel;
  const cost = isZero(left) ? right.cost : isZero(right) ? left.cost : addCosts(left.cost, right.cost);
  if (cost !== undefined) sum.cost = cost;
  return sum;
}

function isZero(usage: Usage): boolean {
  return (
    usage.cost === undefined &&
    usage.input === 0 &&
    usage.cacheRead === 0 &&
    usage.cacheWrite === 0 &&
    usage.output === 0
  );
}
