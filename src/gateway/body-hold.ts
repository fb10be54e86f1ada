/**
 * `gateway.max_request_bytes_in_flight`: request body bytes held in memory by requests in flight
 * (a request's decoded body is held, several times over, for its whole upstream call: a handful of
 * 32 MiB image bodies at once can run a heap out). A body is counted as its bytes arrive, never by
 * the length it declares: a client that declares 32 MiB and sends a byte a second holds one byte a
 * second, not the bound. Past the bound a large body is a 503 (retry shortly); bodies up to 64 KiB
 * always pass. With more than one key, each key's requests hold at most its share of the bound
 * (`max_request_bytes_in_flight_per_key`, default half): past it a large body is that key's 429, so
 * one key's bodies that never finish cannot hold the bound every other key's need. Shared by the
 * generation routes (`generate.ts`), token counting (`app.ts`) and WebSocket messages.
 */
import type { IncomingMessage } from 'node:http';
import { GatewayError } from './errors.ts';
import { type BodyCounter, headerOf, readJson } from './inbound.ts';
import type { GatewayState } from './state.ts';

/** Bodies up to this size are always read and held: the bytes-in-flight bound is for large ones. */
export const smallBodyBytes = 64 * 1024;

/** What the bound is kept in: the bytes held, by all and by each key, and the limits on both. */
export type HoldState = Pick<
  GatewayState,
  'heldBodyBytes' | 'maxHeldBodyBytes' | 'heldBodyBytesByKey' | 'maxHeldBodyBytesPerKey'
>;

const keyShareFull = (held: number, share: number) =>
  new GatewayError({
    status: 429,
    errorClass: 'rate_limit',
    message: `this key's requests hold ${held} bytes of large request bodies, and ${share} is its most at once: try again when one ends`,
    retryAfterSeconds: 1,
    retryable: true,
  });

const overloaded = () =>
  new GatewayError({
    status: 503,
    errorClass: 'server_error',
    code: 'overloaded',
    message: 'the gateway holds as many large request bodies as it may: try again shortly',
    retryAfterSeconds: 1,
    retryable: true,
  });

/**
 * One request's share of the bound: grown as its body arrives, given back by `release` when the
 * request ends; counted in its key's share too when it has a key (`keyName`).
 */
export class HeldBody implements BodyCounter {
  /** The bytes this request holds: its body's size so far. */
  bytes = 0;
  private readonly state: HoldState;
  private readonly keyName: string | undefined;

  constructor(state: HoldState, keyName?: string) {
    this.state = state;
    this.keyName = keyName;
  }

  /**
   * Refuses a large body its key's share (429) or the bound (503) has no room for now, before its
   * bytes are read (a declared length: refused early rather than read and then refused); holds nothing.
   */
  admit(bytes: number): void {
    if (bytes <= smallBodyBytes) return;
    const { state } = this;
    if (this.keyName !== undefined) {
      const byKey = state.heldBodyBytesByKey.get(this.keyName) ?? 0;
      if (byKey - this.bytes + bytes > state.maxHeldBodyBytesPerKey)
        throw keyShareFull(byKey, state.maxHeldBodyBytesPerKey);
    }
    if (state.heldBodyBytes - this.bytes + bytes > state.maxHeldBodyBytes) throw overloaded();
  }

  /** Holds the body's `size` so far (called as its bytes arrive): refused when a large body passes a limit. */
  take(size: number): void {
    if (size <= this.bytes) return;
    this.admit(size);
    this.add(size - this.bytes);
    this.bytes = size;
  }

  /**
   * Holds exactly `size`: more (as `take`), or less — a reservation made before a read (a stored
   * conversation's whole entry, by its stored size) corrected to what the request keeps.
   */
  set(size: number): void {
    if (size >= this.bytes) return this.take(size);
    this.add(size - this.bytes);
    this.bytes = size;
  }

  /** Gives the bytes back (the request ended: served, refused, failed or its client gone). Idempotent. */
  release(): void {
    this.add(-this.bytes);
    this.bytes = 0;
  }

  /** Adds `change` bytes to the bound's count and its key's. */
  private add(change: number): void {
    if (change === 0) return;
    const { state, keyName } = this;
    state.heldBodyBytes += change;
    if (keyName === undefined) return;
    const byKey = (state.heldBodyBytesByKey.get(keyName) ?? 0) + change;
    if (byKey <= 0) state.heldBodyBytesByKey.delete(keyName);
    else state.heldBodyBytesByKey.set(keyName, byKey);
  }
}

/**
 * The key a request's bytes count against (its share of the bound), or undefined: without keys, or
 * with one alone, there are no other keys to keep room for.
 */
export function holderOf(
  state: Pick<GatewayState, 'keys'>,
  key: { name: string } | undefined,
): string | undefined {
  return state.keys.length > 1 ? key?.name : undefined;
}

/** The request's declared body length (0 when chunked or unknown). */
function declaredLength(request: Request | undefined, incoming: IncomingMessage | undefined): number {
  const length = Number(headerOf(request, incoming, 'content-length') ?? 0);
  return Number.isFinite(length) && length > 0 ? length : 0;
}

/**
 * Reads the request's body as JSON (`readJson`), its bytes held in `held` as they arrive. A large
 * declared length the bound has no room for is a 503 before a byte is read (one over the body limit
 * stays readJson's 413). The caller releases `held` when the request ends, whatever its outcome.
 * `cancel` aborted ends a read of Node's request still arriving (`BodyTiming`).
 */
export async function readHeldJson(
  state: GatewayState,
  request: Request | undefined,
  incoming: IncomingMessage | undefined,
  held: HeldBody,
  cancel?: AbortSignal,
): Promise<unknown> {
  const declared = declaredLength(request, incoming);
  if (declared <= state.bodyLimit) held.admit(declared);
  const timing = { idleMs: state.bodyTimeoutMs, deadlineMs: state.bodyDeadlineMs, cancel };
  return readJson(request, state.bodyLimit, incoming, timing, held);
}
