/**
 * OpenAI Responses request rules, with the server-side state they depend on: stored responses
 * (`previous_response_id` chains) and conversations. The errors are OpenAI's own bodies.
 */
import { openaiError } from '../errors.ts';
import { checkSchemaRoot } from './openai.ts';
import type { ResponsePlan } from '../frames.ts';
import type { JsonScript, RecordedRequest } from '../types.ts';
import { parseJson } from '../../../core/json-text.ts';
import { isJsonObject } from '../../../core/json.ts';

/** What the server holds for one stored response or conversation: item ids and function-call ids. */
export interface HeldItems {
  /** The response this one continued (`previous_response_id`). */
  previous?: string;
  items: Set<string>;
  callIds: Set<string>;
}

/** The emulator's Responses state: stored responses and conversations by id. */
export interface ResponsesStore {
  responses: Map<string, HeldItems>;
  conversations: Map<string, HeldItems>;
  /**
   * The account (API key and organization) each reasoning item's `encrypted_content` was issued to:
   * OpenAI decrypts it for that organization only. Content the emulator never issued is not checked.
   */
  encrypted: Map<string, string>;
}

/** An empty store. */
export function createResponsesStore(): ResponsesStore {
  return { responses: new Map(), conversations: new Map(), encrypted: new Map() };
}

/** Encrypted contents remembered, at most (the oldest is forgotten first). */
const maxEncrypted = 10_000;

/** The account a request is made for: its credential header and organization header. */
function accountOf(request: RecordedRequest): string {
  const { headers } = request;
  return `${headers.authorization ?? headers['api-key'] ?? ''}\u0000${headers['openai-organization'] ?? ''}`;
}

/**
 * A reasoning item whose `encrypted_content` the emulator issued to another account: OpenAI's 400
 * `invalid_encrypted_content` (encrypted content is bound to the organization that received it).
 */
function foreignEncrypted(
  item: InputItem | undefined,
  account: string,
  store: ResponsesStore,
): JsonScript | undefined {
  if (item?.type !== 'reasoning' || typeof item.encrypted_content !== 'string') return undefined;
  const issuedTo = store.encrypted.get(item.encrypted_content);
  if (issuedTo === undefined || issuedTo === account) return undefined;
  return openaiError(
    400,
    `The encrypted content ${item.encrypted_content.slice(0, 4)}... could not be verified. Reason: Encrypted content organization_id did not match the target organization.`,
    { code: 'invalid_encrypted_content' },
  );
}

type InputItem = Record<string, unknown> | null;

function bodyOf(request: RecordedRequest): Record<string, unknown> | undefined {
  return typeof request.body === 'object' && request.body !== null
    ? (request.body as Record<string, unknown>)
    : undefined;
}

/** Everything a `previous_response_id` chain (or a conversation) holds. */
function heldBy(store: ResponsesStore, body: Record<string, unknown>): HeldItems {
  const held: HeldItems = { items: new Set(), callIds: new Set() };
  const add = (entry: HeldItems | undefined) => {
    for (const id of entry?.items ?? []) held.items.add(id);
    for (const id of entry?.callIds ?? []) held.callIds.add(id);
  };
  let id = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
  for (let depth = 0; id !== undefined && depth < 10_000; depth++) {
    const entry = store.responses.get(id);
    add(entry);
    id = entry?.previous;
  }
  if (typeof body.conversation === 'string') add(store.conversations.get(body.conversation));
  return held;
}

const notFoundSuffix =
  ' Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.';

/** A follower of a reasoning item: the output item it produced (not a user turn, not a tool output). */
function followsReasoning(item: InputItem | undefined): boolean {
  if (item === undefined || item === null) return false;
  if (item.type === 'function_call_output' || item.type === 'reasoning') return false;
  if (item.type === 'message' || item.type === undefined) return item.role === 'assistant';
  return true;
}

/** The reasoning and item-reference rules: a stored item, or one carried whole with its follower. */
function checkStoredItem(
  input: InputItem[],
  index: number,
  held: HeldItems,
  store: ResponsesStore,
  stored: boolean,
): JsonScript | undefined {
  const item = input[index];
  const id = String(item?.id);
  const isKnown = [...store.responses.values()].some((entry) => entry.items.has(id)) || held.items.has(id);
  if (
    item?.type === 'item_reference' ||
    (item?.type === 'reasoning' && typeof item.encrypted_content !== 'string')
  ) {
    if (!stored || !isKnown)
      return openaiError(404, `Item with id '${id}' not found.${stored ? '' : notFoundSuffix}`, {
        param: 'input',
      });
  }
  if (item?.type === 'reasoning' && !followsReasoning(input[index + 1])) {
    return openaiError(
      400,
      `Item '${id}' of type 'reasoning' was provided without its required following item.`,
      {
        param: 'input',
      },
    );
  }
  return undefined;
}

/**
 * Checks a Responses request:
 * - a `json_schema` text format's root is an object (`checkSchemaRoot`);
 * - `previous_response_id` names a stored response (else 400 `previous_response_not_found`), and is
 *   not combined with `conversation`;
 * - no input item repeats an id the input or the server already holds (`Duplicate item found`);
 * - a reasoning item without `encrypted_content` (or an `item_reference`) names a stored item — with
 *   `store: false` nothing is stored (404 `Item with id … not found`);
 * - a reasoning item is followed by the item it produced;
 * - a reasoning item's `encrypted_content` the emulator issued to another account (API key,
 *   organization) is 400 `invalid_encrypted_content`;
 * - every `function_call_output` answers a `function_call` in the input or held by the server.
 */
export function checkResponsesRequest(
  request: RecordedRequest,
  store: ResponsesStore,
): JsonScript | undefined {
  const body = bodyOf(request);
  if (body === undefined) return undefined;
  const format = (body.text as { format?: { type?: unknown } } | undefined)?.format;
  if (format?.type === 'json_schema') {
    const refused = checkSchemaRoot(format, 'text.format.schema');
    if (refused !== undefined) return refused;
  }
  const previous = body.previous_response_id;
  if (typeof previous === 'string' && body.conversation !== undefined) {
    return openaiError(
      400,
      "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.",
      { param: 'previous_response_id', code: 'mutually_exclusive_parameters' },
    );
  }
  if (typeof previous === 'string' && !store.responses.has(previous)) {
    return openaiError(400, `Previous response with id '${previous}' not found.`, {
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
  }
  if (!Array.isArray(body.input)) return undefined;
  const input = body.input as InputItem[];
  const held = heldBy(store, body);
  const account = accountOf(request);
  const seen = new Set<string>();
  const calls = new Set(held.callIds);
  for (const [index, item] of input.entries()) {
    if (typeof item?.id === 'string' && item.type !== 'item_reference') {
      if (seen.has(item.id) || held.items.has(item.id)) {
        return openaiError(
          400,
          `Duplicate item found with id ${item.id}. Remove duplicate items from your input and try again.`,
          { param: 'input' },
        );
      }
      seen.add(item.id);
    }
    const stored =
      checkStoredItem(input, index, held, store, body.store !== false) ??
      foreignEncrypted(item, account, store);
    if (stored !== undefined) return stored;
    // OpenAI refuses a `call_id` longer than 64 characters, on a call and on its output alike.
    if (
      (item?.type === 'function_call' || item?.type === 'function_call_output') &&
      String(item.call_id).length > 64
    )
      return openaiError(
        400,
        `Invalid 'input[${index}].call_id': string too long. Expected a string with maximum length 64, but got a string with length ${String(item.call_id).length} instead.`,
        { param: `input[${index}].call_id`, code: 'string_above_max_length' },
      );
    if (item?.type === 'function_call') calls.add(String(item.call_id));
    if (item?.type === 'function_call_output' && !calls.has(String(item.call_id))) {
      return openaiError(
        400,
        `No tool call found for function call output with call_id ${String(item.call_id)}.`,
        {
          param: 'input',
        },
      );
    }
  }
  return undefined;
}

/** The `response` object a plan carries: the whole body, or the terminal event of a stream. */
function objectOf(value: unknown): Record<string, unknown> | undefined {
  return isJsonObject(value) ? value : undefined;
}

function responseOf(plan: ResponsePlan): Record<string, unknown> | undefined {
  try {
    // A scripted body may be any JSON (null, an array): only an object is a response to remember.
    if (plan.body.kind === 'whole') return objectOf(parseJson(plan.body.text));
    if (plan.body.kind !== 'frames') return undefined;
    for (const frame of plan.body.frames) {
      if ('raw' in frame) continue;
      const event = objectOf(parseJson(frame.data));
      if (event?.type === 'response.completed' || event?.type === 'response.incomplete')
        return objectOf(event.response);
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function collect(items: unknown, into: HeldItems): void {
  if (!Array.isArray(items)) return;
  for (const item of items as InputItem[]) {
    if (typeof item?.id === 'string') into.items.add(item.id);
    if (item?.type === 'function_call' && typeof item.call_id === 'string') into.callIds.add(item.call_id);
  }
}

/** Remembers the account each reasoning item's encrypted content in `output` was issued to. */
function rememberEncrypted(store: ResponsesStore, account: string, output: unknown): void {
  if (!Array.isArray(output)) return;
  for (const item of output as InputItem[]) {
    if (item?.type !== 'reasoning' || typeof item.encrypted_content !== 'string') continue;
    if (store.encrypted.size >= maxEncrypted) store.encrypted.delete(store.encrypted.keys().next().value!);
    store.encrypted.set(item.encrypted_content, account);
  }
}

/**
 * Remembers what a served response left on the server: with `store` (the default) the response is
 * kept under its id (its input and output items); with a `conversation` both are appended to it.
 */
export function rememberResponse(store: ResponsesStore, request: RecordedRequest, plan: ResponsePlan): void {
  const body = bodyOf(request);
  if (body === undefined || plan.status !== 200) return;
  const response = responseOf(plan);
  if (response === undefined) return;
  rememberEncrypted(store, accountOf(request), response.output);
  if (typeof response.id !== 'string') return;
  const entry: HeldItems = { items: new Set(), callIds: new Set() };
  if (typeof body.previous_response_id === 'string') entry.previous = body.previous_response_id;
  collect(body.input, entry);
  collect(response.output, entry);
  if (typeof body.conversation === 'string') {
    const conversation = store.conversations.get(body.conversation) ?? {
      items: new Set(),
      callIds: new Set(),
    };
    collect(body.input, conversation);
    collect(response.output, conversation);
    store.conversations.set(body.conversation, conversation);
  }
  if (body.store !== false) store.responses.set(response.id, entry);
}
