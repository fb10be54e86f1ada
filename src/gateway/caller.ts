/**
 * Who is calling: the request's id (the client's `x-request-id` when it is a plain token, else a
 * new one) and, on keyed routes, the gateway key it presented — or why it is refused. One check for
 * Hono's routes and the gateway's own server.
 */
import type { WireError } from '../codecs/types.ts';
import { createRequestId } from '../core/ids.ts';
import { unauthorized } from './errors.ts';
import { findKey, type GatewayKey, presentedKey } from './keys.ts';
import type { GatewayState } from './state.ts';

/** The request's id and the gateway key it presented (none when no keys are configured). */
export interface Caller {
  requestId: string;
  key: GatewayKey | undefined;
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

/** The client's `x-request-id` when it is a plain token of at most 128 characters, else a new id. */
export function requestIdFrom(given: string | undefined): string {
  return given !== undefined && requestIdPattern.test(given) ? given : createRequestId();
}

/**
 * The refusal of a keyed route's request (503 while shutting down, 401 without a valid key), or
 * undefined with `caller.key` set. `header` reads a request header, `query` the `?key=` parameter.
 */
export function refusalOf(
  state: GatewayState,
  caller: Caller,
  header: (name: string) => string | undefined,
  query: () => string | undefined,
): WireError | undefined {
  if (!state.accepting)
    return { status: 503, errorClass: 'server_error', message: 'the gateway is shutting down' };
  if (state.keys.length === 0) return undefined;
  caller.key = findKey(state.keys, presentedKey(header, query));
  return caller.key === undefined ? unauthorized().wire : undefined;
}
