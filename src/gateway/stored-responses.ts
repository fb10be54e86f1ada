/**
 * Reading stored Responses back: a conversation for `previous_response_id`, and the items an
 * `item_reference` names. Both read the entry `storeResponse` (generate.ts) wrote under the
 * response's id in the caller's key scope, so another key's id, an expired one or one of a reply
 * that was not stored (`store: false`) is not found: a 404 naming it, never a silent drop.
 */
import { parseResponsesItemId } from '../codecs/ids.ts';
import { RequestFieldError, shown } from '../codecs/fields.ts';
import type { DecodedRequest, ItemReference } from '../codecs/types.ts';
import { parseTranscript } from '../core/transcript-schema.ts';
import type { Item, Part } from '../core/transcript.ts';
import { responseKey } from './artifacts.ts';
import { GatewayError } from './errors.ts';
import type { GatewayStore } from './store.ts';

/**
 * A stored conversation of the shape the gateway writes, or undefined (then "not found"): a shared
 * store is outside the process, and a value another writer left under a response id must not
 * reach a request. Its transcript is validated whole (the transcript schema), so a value of
 * another shape is a 404, never a 500 in a later step or a 400 blaming the client.
 */
export function storedConversation(value: unknown): { transcript: Item[] } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const parsed = parseTranscript((value as { transcript?: unknown }).transcript);
  return parsed.ok ? { transcript: parsed.value } : undefined;
}

/** The reply part types each output item prefix carries (`responsesItemId`). */
const carried: Record<string, readonly Part['type'][]> = {
  msg: ['text', 'structured'],
  rs: ['reasoning'],
  fc: ['tool-call'],
  ctc: ['tool-call'],
};

/** Most distinct responses one request's `item_reference`s may name (past it: a 400). */
export const maxReferencedResponses = 1024;

/**
 * Stored responses read at once while resolving references: each read holds a whole stored
 * conversation (up to the body limit) until its reply parts are taken, so a request naming many
 * large ones holds at most this many at a time.
 */
const referenceReads = 8;

/**
 * Puts each referenced item back in its place: the reply part it was encoded from, as stored.
 * An output item's id names its response and its part's position (`responsesItemId`), so the
 * lookup is that of the response — one per response referenced, however many of its items are —
 * through the same store API as `previous_response_id`, on every instance sharing the store.
 * A request naming more than {@link maxReferencedResponses} responses is refused before any read.
 */
export async function resolveItemReferences(
  store: GatewayStore,
  references: readonly ItemReference[],
  scope: string,
): Promise<void> {
  const named = references.map((reference) => parseResponsesItemId(reference.id));
  const responseIds = [...new Set(named.flatMap((name) => (name === undefined ? [] : [name.responseId])))];
  if (responseIds.length > maxReferencedResponses)
    throw new RequestFieldError(
      'input',
      `input: item_reference items name ${responseIds.length} responses; at most ${maxReferencedResponses} may be referenced in one request`,
    );
  const replies = new Map<string, Part[] | undefined>();
  let next = 0;
  const read = async () => {
    while (next < responseIds.length) {
      const responseId = responseIds[next++]!;
      const last = storedConversation(await store.get(responseKey(scope, responseId)))?.transcript.at(-1);
      replies.set(responseId, last?.kind === 'assistant' ? last.parts : undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(referenceReads, responseIds.length) }, read));
  const parts = references.map((reference, index) => {
    const name = named[index];
    const part = name === undefined ? undefined : replies.get(name.responseId)?.[name.index];
    if (part === undefined || !carried[name!.prefix]!.includes(part.type))
      throw new GatewayError({
        status: 404,
        errorClass: 'invalid_request',
        message: `Item with id '${shown(reference.id)}' not found.`,
        param: reference.path,
      });
    return part;
  });
  // Last first: a later reference's place is never before an earlier one's in the same item.
  for (let index = references.length - 1; index >= 0; index--) {
    const reference = references[index]!;
    // A copy each: one item referenced twice is two parts, later changed (restored) one by one.
    reference.item.parts.splice(reference.at, 0, structuredClone(parts[index]!));
  }
}

/**
 * Puts a stored Responses transcript in front (`previous_response_id`) and referenced items in
 * their places (`item_reference`); undefined when the request names neither (no store round trip).
 * An unknown, expired or other key's id is a 404 naming it.
 */
export function withStoredResponses(
  store: GatewayStore,
  decoded: DecodedRequest,
  scope: string,
): Promise<void> | undefined {
  if (decoded.previousResponseId === undefined && decoded.itemReferences === undefined) return undefined;
  return putStoredResponses(store, decoded, scope);
}

async function putStoredResponses(
  store: GatewayStore,
  decoded: DecodedRequest,
  scope: string,
): Promise<void> {
  const { transcript } = decoded.request;
  if (decoded.itemReferences !== undefined) await resolveItemReferences(store, decoded.itemReferences, scope);
  if (decoded.previousResponseId === undefined) return;
  const stored = storedConversation(await store.get(responseKey(scope, decoded.previousResponseId)));
  if (stored === undefined)
    throw new GatewayError({
      status: 404,
      errorClass: 'invalid_request',
      message: `Previous response with id '${shown(decoded.previousResponseId)}' not found.`,
      param: 'previous_response_id',
    });
  // This turn's `instructions` first, then the stored conversation, then this turn's input.
  const instructions = decoded.instructionItems ?? 0;
  decoded.request.transcript = [
    ...transcript.slice(0, instructions),
    ...stored.transcript,
    ...transcript.slice(instructions),
  ];
}
