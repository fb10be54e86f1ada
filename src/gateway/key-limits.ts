/**
 * A key's limits on requests that generate nothing — a stored reply read, listed or deleted, a
 * token count — and the in-flight count every request of a key with `max_in_flight` takes. A read
 * parses a whole stored conversation and a count may tokenize megabytes: without the key's limits
 * a key refused generations could still keep the instance busy with them. And the count of a key's
 * open WebSockets (`max_websockets`).
 */
import type { WireError } from '../codecs/types.ts';
import { GatewayError } from './errors.ts';
import type { GatewayKey } from './keys.ts';
import type { Reservation } from '../state/types.ts';
import { admitRequest, hasQuota, settleCall } from './quota.ts';
import type { GatewayState } from './state.ts';

/**
 * Counts a request of a key with `max_in_flight` (true), or throws the 429 when it has that many
 * in flight already on this instance: a key's clients that stop reading hold at most that many
 * upstream calls (and pooled connections), not every one a provider's pool has.
 */
export function enterKey(state: GatewayState, name: string, limit: number): true {
  const count = state.inFlightByKey.get(name) ?? 0;
  if (count >= limit)
    throw new GatewayError({
      status: 429,
      errorClass: 'rate_limit',
      message: `this key has ${limit} requests in flight, its most at once: try again when one ends`,
      retryAfterSeconds: 1,
      retryable: true,
    });
  state.inFlightByKey.set(name, count + 1);
  return true;
}

/** Ends a request {@link enterKey} counted. */
export function leaveKey(state: GatewayState, name: string): void {
  const count = (state.inFlightByKey.get(name) ?? 1) - 1;
  if (count <= 0) state.inFlightByKey.delete(name);
  else state.inFlightByKey.set(name, count);
}

/**
 * The 429 of a WebSocket upgrade whose key holds its `max_websockets` open already on this
 * instance (answered before the socket opens), or undefined: the socket may open.
 */
export function socketRefusal(state: GatewayState, key: GatewayKey): WireError | undefined {
  const limit = key.maxWebsockets;
  if ((state.socketsByKey.get(key.name) ?? 0) < limit) return undefined;
  return {
    status: 429,
    errorClass: 'rate_limit',
    message: `this key has ${limit} WebSockets open, its most at once: try again when one closes`,
    retryAfterSeconds: 1,
    retryable: true,
  };
}

/**
 * Counts an open WebSocket of `key` until its connection closes — however it closes: by either
 * side, reset, cut for a timeout or a bad frame (`raw` is the upgraded connection, whose `close`
 * always comes).
 */
export function holdSocket(
  state: GatewayState,
  key: GatewayKey,
  raw: { once(event: 'close', listener: () => void): unknown },
): void {
  const { name } = key;
  state.socketsByKey.set(name, (state.socketsByKey.get(name) ?? 0) + 1);
  raw.once('close', () => {
    const count = (state.socketsByKey.get(name) ?? 1) - 1;
    if (count <= 0) state.socketsByKey.delete(name);
    else state.socketsByKey.set(name, count);
  });
}

/** The response a request's reply is written to: the slot is held until it closes. */
interface Delivery {
  once(event: 'close', listener: () => void): unknown;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
}

/**
 * Serves a request that generates nothing under its key's limits: counted in its `max_in_flight`
 * from the start until its reply is delivered (`delivery` closes; without one, until served — a
 * client that never reads a large stored reply would otherwise free its slot at once and send the
 * next), and one of its `requests_per_minute` (no tokens, no budget) when `serve` calls `admit`:
 * once the request is one the key may make (a count after its model check, as a generation's 403
 * takes no slot of the minute; a stored reply's read at once). The 429 (or the shared store's 503)
 * of the in-flight count is thrown before `serve` runs, that of the minute by `admit`.
 */
export async function withKeyLimits<T>(
  state: GatewayState,
  key: GatewayKey | undefined,
  serve: (admit: () => Promise<void>) => Promise<T>,
  delivery?: Delivery,
): Promise<T> {
  if (key === undefined) return serve(async () => {});
  let counted = key.maxInFlight === undefined ? false : enterKey(state, key.name, key.maxInFlight);
  let reservation: Reservation | undefined;
  const admit = async () => {
    if (reservation !== undefined || !hasQuota(key) || key.limits === undefined) return;
    reservation = await admitRequest(state.shared, key);
  };
  try {
    const served = await serve(admit);
    if (counted && delivery !== undefined && !delivery.writableFinished && !delivery.destroyed) {
      delivery.once('close', () => leaveKey(state, key.name));
      counted = false;
    }
    return served;
  } finally {
    if (reservation !== undefined) void settleCall(state.shared, reservation, undefined);
    if (counted) leaveKey(state, key.name);
  }
}
