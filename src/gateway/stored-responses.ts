/**
 * Stored Responses: the entry a stored reply leaves (`storeResponse`) and every read of it — a
 * conversation for `previous_response_id`, the items an `item_reference` names, the reply and its
 * input for `GET /v1/responses/{id}` and `…/input_items` — and its deletion. All of them use the
 * entry under the response's id in the caller's key scope, so another key's id, an expired one,
 * a deleted one or one of a reply that was not stored (`store: false`) is not found: a 404 naming
 * it, never a silent drop.
 */
import { parseResponsesItemId } from '../codecs/ids.ts';
import { RequestFieldError, shown } from '../codecs/fields.ts';
import { listInputItems, type ListedInputItem } from '../codecs/openai-responses/input-items.ts';
import type { DecodedRequest, EncodeContext, ItemReference } from '../codecs/types.ts';
import { countEscapedKeys, maxEscapedKeys } from '../core/json-text.ts';
import type { CanonicalResponse } from '../core/request.ts';
import { parseTranscript } from '../core/transcript-schema.ts';
import type { Item, Part } from '../core/transcript.ts';
import { approximateSize } from '../core/value-shape.ts';
import { responseKey } from './artifacts.ts';
import type { HeldBody } from './body-hold.ts';
import { GatewayError } from './errors.ts';
import type { GatewayState } from './state.ts';
import type { GatewayStore } from './store.ts';
import type { ResponsesConnection } from './generation-call.ts';

/**
 * What a stored reply keeps, in one entry (one write, one TTL, one read on any instance):
 * - `transcript`: the conversation in canonical form, for the next turn (`previous_response_id`,
 *   `item_reference`) — every part's metadata and artifacts, which no wire form carries whole;
 * - `response`: the Responses object exactly as the client got it (the body's text, or the
 *   `response.completed` object's text cut out of the stream's frame), for `retrieve`. Kept as
 *   that text, not re-encoded from the transcript: the reply's model name, usage, status and ids
 *   are the client's as sent, and a read returns it without writing it again. The reply's
 *   content is so kept twice (as parts and as items): its JSON is written once more by the
 *   store, about as costly as the reply's own (~2 µs per KB) — the price of returning the reply
 *   the client got; a `store: false` reply pays nothing;
 * - `input`: this request's `input` in wire form with ids (`listInputItems`), for `input_items`;
 *   inline image and file bytes are left out of it (the transcript holds them already).
 * The body-limit bound counts the transcript (what the next turn sends upstream); the reply
 * is part of it and the input is at most one request body, so an entry stays within about three
 * body limits, and the memory store's `maxBytes` bounds them all; one key's, in memory or Redis,
 * `state_max_bytes_per_key` (an entry over it on its own is not stored: `store: false`).
 */
interface StoredEntry {
  transcript: Item[];
  response?: string;
  input?: ListedInputItem[];
}

/** What {@link storeResponse} needs of a served Responses call. */
export interface ReplyToStore {
  decoded: DecodedRequest;
  response: CanonicalResponse;
  context: EncodeContext;
  /** The reply's Responses object as JSON text, as the client gets it. */
  replyText: string | undefined;
  scope: string;
  requestId: string;
}

/**
 * Stores a Responses reply (see {@link StoredEntry}). One whose conversation is larger than the
 * body limit is not stored, and the reply says `store: false`: each turn adds to a stored
 * conversation, so without a bound a chain of requests under the limit would send upstream (and
 * hold in memory) a body of any size. Nor, with a WARN and `store: false`, is an entry the store
 * could not read back: one holding more object keys written with escapes than a parse takes
 * (`maxEscapedKeys`), which a reply with an id would otherwise leave "not found" on every read.
 */
export async function storeResponse(
  state: GatewayState,
  reply: ReplyToStore,
  saving: Promise<void> | undefined,
): Promise<void> {
  const { decoded, context } = reply;
  await saving;
  const transcript = conversationOf(decoded, reply.response);
  const size = approximateSize(transcript, state.bodyLimit);
  if (size > state.bodyLimit) {
    context.store = false;
    state.logger.warn('gateway: a response was not stored: its conversation is over the body limit', {
      requestId: reply.requestId,
      approximateBytes: size,
      limit: state.bodyLimit,
    });
    return;
  }
  const responseId = context.responseId!;
  const entry: StoredEntry = { transcript, input: listInputItems(decoded.input, responseId) };
  if (reply.replyText !== undefined) entry.response = reply.replyText;
  // Stored only if it reads back: past the escaped keys a parse takes, every read of it would be
  // "not found" (each request's own are within the bound; a conversation adds them up).
  const escapedKeys = countEscapedKeys(entry, maxEscapedKeys);
  if (escapedKeys > maxEscapedKeys) {
    context.store = false;
    state.logger.warn('gateway: a response was not stored: it could not be read back', {
      requestId: reply.requestId,
      reason: `more than ${maxEscapedKeys} object keys written with escapes`,
      limit: maxEscapedKeys,
    });
    return;
  }
  await state.store.put(responseKey(reply.scope, responseId), entry, state.ttlMs);
}

/**
 * The conversation a Responses reply leaves for its next turn: everything but this turn's
 * `instructions` (developer and system messages in `input` included), then the reply.
 */
export function conversationOf(decoded: DecodedRequest, response: CanonicalResponse): Item[] {
  const history = decoded.request.transcript.slice(decoded.instructionItems ?? 0);
  return [...history, { kind: 'assistant' as const, parts: response.content }];
}

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
/**
 * How a stored reply is looked up: a read that could not reach the shared store is a 503
 * (`state_unavailable`, retryable), never a 404 for a reply the other instances still serve.
 */
const lookup = { authoritative: true } as const;

const carried: Record<string, readonly Part['type'][]> = {
  msg: ['text', 'structured'],
  rs: ['reasoning'],
  fc: ['tool-call'],
  ctc: ['tool-call'],
};

/** Most distinct responses one request's `item_reference`s may name (past it: a 400). */
export const maxReferencedResponses = 1024;

/**
 * Most `item_reference` items one request may hold (past it: a 400 naming `input`). Each puts a
 * copy of a stored part in the transcript, so the references to one response are not bounded by
 * {@link maxReferencedResponses}; a body limit's worth (~90 bytes each: 180,000 in 16 MiB) of
 * references to one large part is refused here, before any read. A conversation of this many
 * items is far past any model's context window, and the Vercel AI SDK, which sends them, sends one
 * per assistant message.
 */
export const maxItemReferences = 100_000;

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
 * A request naming more than {@link maxReferencedResponses} responses, or holding more than
 * {@link maxItemReferences} references, is refused before any read. `hold` is given the size the
 * copies will take before any is made (the request's share of `max_request_bytes_in_flight`: past
 * it, a 503 and no copy); the size is also returned.
 */
export async function resolveItemReferences(
  store: GatewayStore,
  references: readonly ItemReference[],
  scope: string,
  hold: (bytes: number) => void = () => {},
): Promise<number> {
  if (references.length > maxItemReferences)
    throw new RequestFieldError(
      'input',
      `input: ${references.length} item_reference items; at most ${maxItemReferences} may be sent in one request`,
    );
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
      const last = storedConversation(
        await store.get(responseKey(scope, responseId), undefined, lookup),
      )?.transcript.at(-1);
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
  // Sized once per stored part, however often it is referenced (`approximateSize(parts)`).
  const sizes = new Map<Part, number>();
  let size = 2;
  for (const part of parts) {
    let partSize = sizes.get(part);
    if (partSize === undefined) sizes.set(part, (partSize = approximateSize(part)));
    size += partSize;
  }
  hold(size);
  insertReferenced(references, parts);
  return size;
}

/**
 * Puts a copy of `parts[index]` in `references[index].item` before the part that was at its `at`,
 * references of one place in the order given (the codec gives an item's references in order of
 * place). Each item's parts are built once, in one pass: a splice per reference moved every part
 * after it, and N references into one item took O(N²) (120,000 of them, 31 s on the event loop).
 */
function insertReferenced(references: readonly ItemReference[], parts: readonly Part[]): void {
  const byItem = new Map<Item, number[]>();
  references.forEach((reference, index) => {
    const indices = byItem.get(reference.item);
    if (indices === undefined) byItem.set(reference.item, [index]);
    else indices.push(index);
  });
  for (const [item, indices] of byItem) {
    // Stable: references of one place keep their order.
    indices.sort((left, right) => references[left]!.at - references[right]!.at);
    const built: Part[] = [];
    let next = 0;
    // A copy each: one item referenced twice is two parts, later changed (restored) one by one.
    const insertUpTo = (at: number) => {
      for (; next < indices.length && references[indices[next]!]!.at <= at; next++)
        built.push(structuredClone(parts[indices[next]!]!));
    };
    const original = item.parts;
    for (let position = 0; position < original.length; position++) {
      insertUpTo(position);
      built.push(original[position]!);
    }
    insertUpTo(Number.POSITIVE_INFINITY);
    item.parts = built;
  }
}

/** The request's share of `max_request_bytes_in_flight` (`body-hold.ts`): what it holds grows by what is read in. */
export type HeldBytes = Pick<HeldBody, 'bytes' | 'take' | 'set'>;

/**
 * Puts a stored Responses transcript in front (`previous_response_id`) and referenced items in
 * their places (`item_reference`); undefined when the request names neither (no store round trip).
 * An unknown, expired or other key's id is a 404 naming it. What is put in is held against
 * `max_request_bytes_in_flight` with the request's body (`held`): a request of 100 bytes naming a
 * 16 MB conversation holds that conversation for its whole upstream call, as a 16 MB body would —
 * past the bound, a 503 (retry shortly), as for a body.
 */
export function withStoredResponses(
  store: GatewayStore,
  decoded: DecodedRequest,
  scope: string,
  held: HeldBytes,
  connection?: ResponsesConnection,
): Promise<void> | undefined {
  if (decoded.previousResponseId === undefined && decoded.itemReferences === undefined) return undefined;
  return putStoredResponses(store, decoded, scope, held, connection);
}

async function putStoredResponses(
  store: GatewayStore,
  decoded: DecodedRequest,
  scope: string,
  held: HeldBytes,
  connection: ResponsesConnection | undefined,
): Promise<void> {
  const { transcript } = decoded.request;
  if (decoded.itemReferences !== undefined)
    await resolveItemReferences(store, decoded.itemReferences, scope, (bytes) =>
      held.take(held.bytes + bytes),
    );
  if (decoded.previousResponseId === undefined) return;
  // A shared store's entry is held by its stored size before it is fetched (refused, unread, when
  // the bound has no room), then by the transcript the request keeps for its upstream call (the
  // entry's reply and input items are dropped once read).
  const before = held.bytes;
  // The connection's own most recent response (a Responses WebSocket's, `store: false` included):
  // no store round trip. Any other id is read from the store.
  const local = connection?.last;
  const stored =
    local !== undefined && local.id === decoded.previousResponseId
      ? local
      : storedConversation(
          await store.get(
            responseKey(scope, decoded.previousResponseId),
            (bytes) => held.take(before + bytes),
            lookup,
          ),
        );
  if (stored === undefined)
    throw new GatewayError({
      status: 404,
      errorClass: 'invalid_request',
      message: `Previous response with id '${shown(decoded.previousResponseId)}' not found.`,
      param: 'previous_response_id',
      // OpenAI's code for it (on HTTP and in WebSocket mode): clients send the whole conversation again on it.
      code: 'previous_response_not_found',
    });
  held.set(before + approximateSize(stored.transcript));
  // This turn's `instructions` first, then the stored conversation, then this turn's input.
  const instructions = decoded.instructionItems ?? 0;
  decoded.request.transcript = [
    ...transcript.slice(0, instructions),
    ...stored.transcript,
    ...transcript.slice(instructions),
  ];
}

/** The 404 of a response id that names no stored reply the caller may read. */
function responseNotFound(id: string): GatewayError {
  return new GatewayError({
    status: 404,
    errorClass: 'invalid_request',
    message: `Response with id '${shown(id)}' not found.`,
  });
}

/**
 * A stored reply as `GET /v1/responses/{id}` and its `input_items` read it: the Responses object's
 * text and the input items. A 404 when there is none in the caller's scope, and for a value of
 * another shape (another writer's, a deleted reply's mark, an entry an older gateway wrote
 * without them): never a 500, never a reply that is not the one asked for.
 */
export async function readStoredReply(
  store: GatewayStore,
  scope: string,
  id: string,
): Promise<{ response: string; input: ListedInputItem[] }> {
  const value = (await store.get(responseKey(scope, id), undefined, lookup)) as
    Partial<StoredEntry> | undefined;
  const response = typeof value === 'object' && value !== null ? value.response : undefined;
  const input = value?.input ?? [];
  if (typeof response !== 'string' || !Array.isArray(input)) throw responseNotFound(id);
  return { response, input };
}

/** What a deleted reply's entry holds until it expires: no transcript, so every read is a 404. */
const deletedMark = { deleted: true };

/**
 * Deletes a stored reply (`DELETE /v1/responses/{id}`); a 404 when there is none. Its entry is
 * overwritten by a mark of the same lifetime, through the store's own `put`: a shared store
 * (Redis) then answers "not found" on every instance, and the mark expires after any copy of the
 * reply would have. The mark must reach the shared store (`shared`): when it cannot be written
 * (Redis down or slow), the DELETE fails with a 503 whatever `on_state_failure` says, rather than
 * answer `deleted: true` for a reply the other instances (and this one, once Redis is read again)
 * would still serve. So must the read that looks for the reply: from this instance's memory alone
 * (Redis down, `open`) it finds nothing and the DELETE would answer 404 for a reply every instance
 * still serves — a 503 instead. A 503 whose write reached Redis after all leaves the reply deleted:
 * the retry answers 404.
 */
export async function deleteStoredReply(state: GatewayState, scope: string, id: string): Promise<void> {
  const key = responseKey(scope, id);
  if (storedConversation(await state.store.get(key, undefined, { shared: true })) === undefined)
    throw responseNotFound(id);
  await state.store.put(key, deletedMark, state.ttlMs, { shared: true });
}
