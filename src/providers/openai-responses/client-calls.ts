/**
 * Built-in tool calls the client runs — `apply_patch_call`, `local_shell_call`, a `shell_call` with no
 * hosted container, a `tool_search_call` with `execution: client` — as canonical tool calls, and the
 * items that answer them.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { parseJson } from '../../core/json-text.ts';
import type { Item, ToolResultPart } from '../../core/transcript.ts';
import { clientCallOf, clientCallTypes } from '../../core/responses-client-calls.ts';

/** The metadata key that holds the call's item verbatim (`<provider>.item`). */
export function clientItemKey(provider: string): string {
  return `${provider}.item`;
}

/**
 * The verbatim item of a tool call read from this provider's client-executed item, or undefined
 * (a call of another provider, or one whose kept item does not stand for it: it goes as a
 * `function_call`).
 */
export function clientCallItem(
  part: { name: string; metadata?: Record<string, JsonValue> | undefined },
  provider: string,
): JsonObject | undefined {
  const item = part.metadata?.[clientItemKey(provider)];
  if (!isJsonObject(item)) return undefined;
  const call = clientCallOf(item);
  return call !== undefined && call.name === part.name ? item : undefined;
}

/** The verbatim items of the transcript's client-executed calls, by canonical call id. */
export function clientCallItems(transcript: readonly Item[], provider: string): Map<string, JsonObject> {
  const items = new Map<string, JsonObject>();
  for (const item of transcript)
    if (item.kind === 'assistant')
      for (const part of item.parts)
        if (part.type === 'tool-call') {
          const verbatim = clientCallItem(part, provider);
          if (verbatim !== undefined) items.set(part.id, verbatim);
        }
  return items;
}

/**
 * The item answering a client-executed call (`call` its verbatim item), from the tool result: its
 * verbatim answer when the result was read from one (`<provider>.item` of the right type), else
 * - `apply_patch_call_output`: `status` failed for an error result, else completed; `output` the text;
 * - `local_shell_call_output`: `output` the text;
 * - `shell_call_output`: `output` the result's JSON when it is an array of `{stdout, stderr,
 *   outcome}`, else one entry with the text as stdout and `outcome` exit 1 for an error, else 0;
 *   `max_output_length` the call's when it set one;
 * - `tool_search_output`: `tools` the result's JSON when it is an array of tools or `{tools: [...]}`,
 *   else none.
 */
export function clientOutputItem(
  call: JsonObject,
  callId: string,
  result: ToolResultPart,
  text: string,
  provider: string,
): JsonObject {
  const type = clientCallTypes[String(call.type)]!.output;
  const verbatim = result.metadata?.[clientItemKey(provider)];
  if (isJsonObject(verbatim) && verbatim.type === type)
    return verbatim.call_id === callId ? verbatim : { ...verbatim, call_id: callId };
  switch (type) {
    case 'apply_patch_call_output':
      return { type, call_id: callId, status: result.isError ? 'failed' : 'completed', output: text };
    case 'local_shell_call_output':
      return { type, call_id: callId, output: text };
    case 'shell_call_output': {
      const item: JsonObject = { type, call_id: callId, output: shellOutput(result, text) };
      const action = call.action;
      if (isJsonObject(action) && typeof action.max_output_length === 'number')
        item.max_output_length = action.max_output_length;
      return item;
    }
    default:
      return {
        type,
        call_id: callId,
        execution: 'client',
        status: 'completed',
        tools: searchTools(result, text),
      };
  }
}

/** The result's JSON value: its `json` output, or its text when that parses. */
function jsonOf(result: ToolResultPart, text: string): unknown {
  if (result.output.type === 'json') return result.output.value;
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

function shellOutput(result: ToolResultPart, text: string): JsonValue[] {
  const value = jsonOf(result, text);
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (entry) => isJsonObject(entry) && 'stdout' in entry && 'stderr' in entry && isJsonObject(entry.outcome),
    )
  )
    return value as JsonValue[];
  return [{ stdout: text, stderr: '', outcome: { type: 'exit', exit_code: result.isError ? 1 : 0 } }];
}

function searchTools(result: ToolResultPart, text: string): JsonValue[] {
  const value = jsonOf(result, text);
  if (Array.isArray(value)) return value as JsonValue[];
  if (isJsonObject(value) && Array.isArray(value.tools)) return value.tools;
  return [];
}
