/**
 * `gateway.max_request_bytes_in_flight`: request body bytes held in memory by requests in flight
 * (a request's decoded body is held, several times over, for its whole upstream call: a handful of
 * 32 MiB image bodies at once can run a heap out). A body is counted as its bytes arrive, never by
 * the length it declares: a client that declares 32 MiB and sends a byte a second holds one byte a
 * second, not the bound. Past the bound a large body is a 503 (retry shortly); bodies up to 64 KiB
 * always pass. Shared by the generation routes (`generate.ts`) and token counting (`app.ts`).
 */
import type { IncomingMessage } from 'node:http';
import { GatewayError } from './errors.ts';
import { type BodyCounter, headerOf, readJson } from './inbound.ts';
import type { GatewayState } from './state.ts';

/** Bodies up to this size are always read and held: the bytes-in-flight bound is for large ones. */
export const smallBodyBytes = 64 * 1024;

const overloaded = () =>
  new GatewayError({
    status: 503,
    errorClass: 'server_error',
    code: 'overloaded',
    message: 'the gateway holds as many large request bodies as it may: try again shortly',
    retryAfterSeconds: 1,
    retryable: true,
  });

/** One request's share of the bound: grown as its body arrives, given back by `release` when the request ends. */
export class HeldBody implements BodyCounter {
  /** The bytes this request holds: its body's size so far. */
  bytes = 0;
  private readonly state: Pick<GatewayState, 'heldBodyBytes' | 'maxHeldBodyBytes'>;

  constructor(state: Pick<GatewayState, 'heldBodyBytes' | 'maxHeldBodyBytes'>) {
    this.state = state;
  }

  /**
   * Refuses (503) a large body the bound has no room for now, before its bytes are read (a declared
   * length: refused early rather than read and then refused); holds nothing.
   */
  admit(bytes: number): void {
    if (bytes > smallBodyBytes && this.state.heldBodyBytes - this.bytes + bytes > this.state.maxHeldBodyBytes)
      throw overloaded();
  }

  /** Holds the body's `size` so far (called as its bytes arrive): a 503 when a large body passes the bound. */
  take(size: number): void {
    if (size <= this.bytes) return;
    this.admit(size);
    this.state.heldBodyBytes += size - this.bytes;
    this.bytes = size;
  }

  /**
   * Holds exactly `size`: more (as `take`), or less — a reservation made before a read (a stored
   * conversation's whole entry, by its stored size) corrected to what the request keeps.
   */
  set(size: number): void {
    if (size >= this.bytes) return this.take(size);
    this.state.heldBodyBytes -= this.bytes - size;
    this.bytes = size;
  }

  /** Gives the bytes back (the request ended: served, refused, failed or its client gone). Idempotent. */
  release(): void {
    this.state.heldBodyBytes -= this.bytes;
    this.bytes = 0;
  }
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
 */
export async function readHeldJson(
  state: GatewayState,
  request: Request | undefined,
  incoming: IncomingMessage | undefined,
  held: HeldBody,
): Promise<unknown> {
  const declared = declaredLength(request, incoming);
  if (declared <= state.bodyLimit) held.admit(declared);
  return readJson(request, state.bodyLimit, incoming, state.bodyTimeoutMs, held);
}
