/** Realistic-looking provider ids and opaque tokens, for encoded responses (gateway and emulator alike). */
import { randomBytes } from 'node:crypto';
import { randomByte } from '../core/ids.ts';

const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const hex = '0123456789abcdef';
/** Gemini's response ids: base62 and URL-safe base64's two more (a constant: the alphabets' codes are kept by string). */
const geminiAlphabet = `${base62}-_`;

/** The character codes of an alphabet, made once. */
function codesOf(alphabet: string): number[] {
  const codes: number[] = [];
  for (let index = 0; index < alphabet.length; index++) codes.push(alphabet.charCodeAt(index));
  return codes;
}

const base62Codes = codesOf(base62);
/** Each other alphabet's character codes (the few this module and the emulator use; an odd one is not kept). */
const alphabets = new Map<string, number[]>();
/** Per length, the reused character codes of the token being made (ids are made one at a time). */
const tokens = new Map<number, number[]>();

/**
 * A random string of `length` characters drawn from `alphabet` (base62 by default).
 *
 * The alphabet's codes are read from an array made once, and each length has its own reused array
 * of the token's codes: one array resized per call (`codes.length = length`, 29 then 10 for a Chat
 * reply's two ids) was a runtime call into the array's length setter and a backing store grown
 * again each time, and `alphabet.charCodeAt` per character a generic property load (TurboFan
 * called the LoadIC for it: ~3.8k instructions a call). Under callgrind, a Chat reply's two ids
 * cost ~6.1k instructions before, ~5.1k after, in a loop of nothing else.
 */
export function randomToken(length: number, alphabet = base62): string {
  let codes = alphabet === base62 ? base62Codes : alphabets.get(alphabet);
  if (codes === undefined) {
    codes = codesOf(alphabet);
    if (alphabets.size < 16) alphabets.set(alphabet, codes);
  }
  let token = tokens.get(length);
  if (token === undefined) {
    // Filled by `push`: a packed array (`new Array(length)` is a holey one).
    token = [];
    for (let index = 0; index < length; index++) token.push(0);
    if (length <= 128) tokens.set(length, token);
  }
  const size = codes.length;
  for (let index = 0; index < length; index++) token[index] = codes[randomByte() % size]!;
  // One flat string from the codes: appending a character at a time made a string per character
  // and a rope that JSON.stringify then flattened (the reply's two ids, ~7k instructions a call).
  return String.fromCharCode.apply(null, token);
}

/** A random lower-case hex string of `length` characters. */
export function randomHex(length: number): string {
  return randomToken(length, hex);
}

/** Anthropic message id, e.g. `msg_01QC4g3HwBThD4BaNtBckFDJ`. */
export function createAnthropicMessageId(): string {
  return `msg_01${randomToken(22)}`;
}

/** Anthropic tool-use id, e.g. `toolu_01KFbKqPYSuAKujiL6mTfzYA`. */
export function createAnthropicToolId(): string {
  return `toolu_01${randomToken(22)}`;
}

/** Anthropic request id, as in the `request-id` header and error bodies. */
export function createAnthropicRequestId(): string {
  return `req_011C${randomToken(20)}`;
}

/** OpenAI chat completion id, e.g. `chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0`. */
export function createChatCompletionId(): string {
  return `chatcmpl-${randomToken(29)}`;
}

/** OpenAI tool call id, e.g. `call_AB6AaRZ1FYZB2RwS6A5vbdqn`. */
export function createOpenaiCallId(): string {
  return `call_${randomToken(24)}`;
}

/** OpenAI Responses object id with the given prefix (`resp`, `msg`, `rs`, `fc`). */
export function createResponsesId(prefix: string): string {
  return `${prefix}_${randomHex(50)}`;
}

/**
 * The id of a Responses output item: its response's id with the position of the reply part it
 * carries (`msg_<hex>_2` is part 2 of `resp_<hex>`). An `item_reference` to it then needs one
 * lookup, that of its stored response — no index of item ids to write, keep or expire.
 */
export function responsesItemId(prefix: string, responseId: string, index: number): string {
  const hex = responseId.startsWith('resp_') ? responseId.slice(5) : randomHex(50);
  return `${prefix}_${hex}_${index}`;
}

/**
 * The id of an item a client sent in a stored response's `input` without one (`input_items`
 * lists every item with an id): its response's hex and its place in `input` (`msg_<hex>_in0`),
 * so the same item has the same id on every read. The `in` keeps it apart from an output item's
 * id: an `item_reference` to it names no reply part (a 404), never the wrong one.
 */
export function responsesInputItemId(prefix: string, responseId: string, index: number): string {
  return `${prefix}_${responseId.startsWith('resp_') ? responseId.slice(5) : responseId}_in${index}`;
}

/** The response and part an output item's id names (see {@link responsesItemId}), or undefined. */
export function parseResponsesItemId(
  id: string,
): { prefix: string; responseId: string; index: number } | undefined {
  const match = /^(msg|rs|fc|ctc)_([0-9a-f]{1,64})_(\d{1,6})$/.exec(id);
  if (match === null) return undefined;
  return { prefix: match[1]!, responseId: `resp_${match[2]!}`, index: Number(match[3]) };
}

/** Gemini `responseId`, e.g. `M3iLaY-AI7zTxN8P3Piw4Qg`. */
export function createGeminiResponseId(): string {
  return randomToken(23, geminiAlphabet);
}

/** An opaque base64 signature like Anthropic's and Gemini's thought signatures. */
export function createSignature(): string {
  return randomBytes(96).toString('base64');
}

/** Seconds since the epoch, as in OpenAI `created` fields. */
export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
