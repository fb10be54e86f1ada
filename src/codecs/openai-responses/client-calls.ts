/**
 * Built-in calls a Responses client runs itself (`apply_patch_call`, `local_shell_call`, a
 * `shell_call` without a hosted container, a `tool_search_call` with `execution: client`) and the
 * items answering them, both ways: the same tool calls and results the Responses adapter reads
 * (`core/responses-client-calls.ts`: one table and one rule for both),
 * each item kept verbatim so that it goes back to a Responses client, or upstream, as it came.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { clientCallOf } from '../../core/responses-client-calls.ts';
import type { MetadataMap } from '../../core/metadata.ts';
import type { Part } from '../../core/transcript.ts';
import { RequestFieldError, requiredString, shown } from '../fields.ts';
import { sentAt } from '../common.ts';

/**
 * Metadata holding a client's item verbatim until the gateway knows which adapter it goes to: the
 * route's own Responses adapter makes it its `<provider>.item` (`adoptUntaggedItems`, gateway).
 */
export const untaggedItemKey = 'switchyard.untagged_item';

/** A client-run call item of the request's input → a tool call keeping the item; refused when the server runs it. */
export function decodeClientCall(item: Record<string, unknown>, path: string): Part {
  const call = clientCallOf(item);
  if (call === undefined)
    throw new RequestFieldError(
      `${path}.type`,
      `input item type '${shown(item.type)}' run by the server is not supported by the gateway`,
      'unsupported',
    );
  const part: Part = {
    type: 'tool-call',
    id: item.call_id as never,
    name: call.name,
    input: call.input,
    metadata: { [untaggedItemKey]: item as JsonObject },
  };
  return sentAt(part, `${path}.call_id`);
}

/**
 * An answer item → a tool result keeping the item: `apply_patch_call_output` its `output` text
 * (an error when `status` is failed), `local_shell_call_output` its `output` text (its call named by
 * `call_id`, or `id` as the API reference has it), `shell_call_output` its `output` entries as JSON,
 * `tool_search_output` `{tools}` as JSON.
 */
export function decodeClientOutput(item: Record<string, unknown>, path: string): Part {
  const callId =
    item.type === 'local_shell_call_output' && item.call_id === undefined
      ? requiredString(item, 'id', `${path}.id`)
      : requiredString(item, 'call_id', `${path}.call_id`);
  const metadata: MetadataMap = { [untaggedItemKey]: item as JsonObject };
  const text = typeof item.output === 'string' ? item.output : '';
  const part: Part =
    item.type === 'shell_call_output'
      ? {
          type: 'tool-result',
          callId: callId as never,
          output: json(item.output ?? []),
          isError: false,
          metadata,
        }
      : item.type === 'tool_search_output'
        ? {
            type: 'tool-result',
            callId: callId as never,
            output: json({ tools: item.tools ?? [] }),
            isError: false,
            metadata,
          }
        : {
            type: 'tool-result',
            callId: callId as never,
            output: { type: 'text', text },
            isError: item.status === 'failed',
            metadata,
          };
  return sentAt(part, `${path}.call_id`);
}

function json(value: unknown): { type: 'json'; value: JsonValue } {
  return { type: 'json', value: value as JsonValue };
}

/**
 * The item a tool call of a Responses upstream (`provider`) was read from, when it is a client-run
 * call of that name (`<provider>.item`); else undefined. It goes to the client as it is, its own
 * `call_id` included (not the gateway's call id): the client's answer names it, and the call and
 * answer then reach the upstream as the upstream wrote the call.
 */
export function clientCallItem(
  part: { name: string; metadata?: MetadataMap | undefined },
  provider: string | undefined,
): Record<string, unknown> | undefined {
  if (provider === undefined) return undefined;
  const item = part.metadata?.[`${provider}.item`];
  return isJsonObject(item) && clientCallOf(item)?.name === part.name ? item : undefined;
}

/**
 * A reply's parts with each client-run call from a Responses upstream (`provider`) under the
 * `call_id` its item carries — the id a Responses client was given ({@link clientCallItem}) and
 * answers with — instead of the gateway's call id; the same array when there is none. What the
 * gateway keeps of the reply (its stored conversation, its call artifacts) then names the call as
 * the client does, as a replayed call item does (`decodeClientCall`), and a later turn sends the
 * item upstream with its own `call_id`.
 */
export function underClientCallIds(content: Part[], provider: string | undefined): Part[] {
  let renamed: Part[] | undefined;
  content.forEach((part, index) => {
    if (part.type !== 'tool-call') return;
    const callId = clientCallItem(part, provider)?.call_id;
    if (typeof callId !== 'string' || callId === part.id) return;
    renamed ??= [...content];
    renamed[index] = { ...part, id: callId as never };
  });
  return renamed ?? content;
}
