/**
 * OpenAI Responses built-in calls the client runs itself — `apply_patch_call`, `local_shell_call`, a
 * `shell_call` with no hosted container, a `tool_search_call` with `execution: client` — and the
 * items answering them: one table and one rule for the Responses adapter (which reads them from
 * the provider and replays them) and the gateway's Responses codec (which reads them from a client).
 */
import { isJsonObject, type JsonObject, type JsonValue } from './json.ts';

/** Per call item type: the tool's name (the call's name), the field that is its input, the answer's type. */
export const clientCallTypes: Readonly<Record<string, { name: string; payload: string; output: string }>> = {
  apply_patch_call: { name: 'apply_patch', payload: 'operation', output: 'apply_patch_call_output' },
  local_shell_call: { name: 'local_shell', payload: 'action', output: 'local_shell_call_output' },
  shell_call: { name: 'shell', payload: 'action', output: 'shell_call_output' },
  tool_search_call: { name: 'tool_search', payload: 'arguments', output: 'tool_search_output' },
};

/** The answer item types. */
export const clientOutputTypes: ReadonlySet<string> = new Set(
  Object.values(clientCallTypes).map((kind) => kind.output),
);

/**
 * The tool call an item stands for when the client must run it: name = the tool's type
 * (`apply_patch`, `local_shell`, `shell`, `tool_search`), input = the item's payload under its own
 * field name (`{operation}`, `{action}`, `{action}`, `{arguments}`). Undefined for any other item,
 * for a call the server runs (a `shell_call` in a container, a server tool search) and for one
 * without a `call_id` (nothing could answer it). Own keys only: a `constructor` or `__proto__`
 * item is no call.
 */
export function clientCallOf(item: Record<string, unknown>): { name: string; input: JsonObject } | undefined {
  const kind =
    typeof item.type === 'string' && Object.hasOwn(clientCallTypes, item.type)
      ? clientCallTypes[item.type]
      : undefined;
  if (kind === undefined || typeof item.call_id !== 'string' || item.call_id === '') return undefined;
  if (item.type === 'shell_call' && !isLocalEnvironment(item.environment)) return undefined;
  if (item.type === 'tool_search_call' && item.execution !== 'client') return undefined;
  return { name: kind.name, input: { [kind.payload]: (item[kind.payload] ?? null) as JsonValue } };
}

/** No environment, or `{type: 'local'}`: the client runs the commands (a container is OpenAI's). */
function isLocalEnvironment(environment: unknown): boolean {
  return (
    environment === undefined ||
    environment === null ||
    (isJsonObject(environment) && environment.type === 'local')
  );
}
