/** Branded identifier types and their factories. */

declare const brand: unique symbol;
/** A string that the type checker keeps apart from other strings. */
export type Brand<Value, Name extends string> = Value & { readonly [brand]: Name };

/** Identifies one call to an adapter; a ULID, passed to `cancel()`. */
export type RequestId = Brand<string, 'RequestId'>;
/** A canonical tool-call id (`tu_<ulid>` when minted by Switchyard). */
export type ToolCallId = Brand<string, 'ToolCallId'>;
/** Identifies a transcript item. */
export type MessageId = Brand<string, 'MessageId'>;
/** Identifies an adapter session. */
export type SessionId = Brand<string, 'SessionId'>;

/** Canonical model id `provider:name`, e.g. `anthropic:claude-sonnet-4-5`. */
export type ModelId = `${string}:${string}`;

/** Crockford's base32, the ULID alphabet. */
const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Random bytes for ULIDs, drawn from the platform CSPRNG 4 KiB at a time. The `ulid` package looks
 * its PRNG up and calls `crypto.getRandomValues` once per character (16 per id): ~10 µs per id,
 * two ids per adapter call, the largest single item of an adapter call's fixed cost.
 */
const pool = new Uint8Array(4096);
let poolIndex = pool.length;

/** One byte from the pooled CSPRNG buffer (ids here and the codecs' provider-shaped ids). */
export function randomByte(): number {
  if (poolIndex === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolIndex = 0;
  }
  return pool[poolIndex++]!;
}

/** The alphabet's character codes, and the reused codes of the ULID being made. */
const alphabetCodes = Array.from(alphabet, (character) => character.charCodeAt(0));
const ulidCodes: number[] = new Array<number>(26).fill(0);

/**
 * A ULID (https://github.com/ulid/spec): 10 characters of millisecond time, then 16 random ones
 * (80 bits: each character one pooled byte's low 5 bits, uniform since 256 is a multiple of 32).
 */
function newUlid(): string {
  let time = Date.now();
  for (let index = 9; index >= 0; index--) {
    ulidCodes[index] = alphabetCodes[time % 32]!;
    time = Math.floor(time / 32);
  }
  for (let index = 10; index < 26; index++) ulidCodes[index] = alphabetCodes[randomByte() & 31]!;
  // One string from the character codes (appending 26 characters made 26 intermediate strings).
  return String.fromCharCode.apply(null, ulidCodes);
}

/** Creates a fresh ULID request id. */
export function createRequestId(): RequestId {
  return newUlid() as RequestId;
}

/** Creates a fresh canonical tool-call id `tu_<ulid>`. */
export function createToolCallId(): ToolCallId {
  return `tu_${newUlid()}` as ToolCallId;
}

/** Creates a fresh session id `ses_<ulid>`. */
export function createSessionId(): SessionId {
  return `ses_${newUlid()}` as SessionId;
}

/** Brands an existing string as a tool-call id (no validation beyond non-empty). */
export function toolCallId(value: string): ToolCallId {
  return value as ToolCallId;
}

/**
 * The one parser of a model id (#19 "a model id is parsed once"): splits `provider:name` at its
 * first colon into its two halves; a bare name (no colon, or one at the start) has provider
 * `undefined`. Every other place takes a resolved model (`ResolvedModel`: provider, wire name,
 * canonical id) or calls this; `test/model-id-parsing.test.ts` fails on a new ad-hoc split.
 */
export function splitModelId(model: string): { provider: string | undefined; name: string } {
  const colon = model.indexOf(':');
  if (colon <= 0) return { provider: undefined, name: model };
  return { provider: model.slice(0, colon), name: model.slice(colon + 1) };
}

/** The canonical id of `name` served by `provider`: `provider:name`. */
export function joinModelId(provider: string, name: string): ModelId {
  return `${provider}:${name}`;
}

/**
 * The wire name an adapter named `adapter` sends for `model`: its own `adapter:` prefix removed,
 * any other name whole (a host's own ids may hold a colon: `qwen3:8b`).
 */
export function wireNameFor(adapter: string, model: string): string {
  const { provider, name } = splitModelId(model);
  return provider === adapter ? name : model;
}
