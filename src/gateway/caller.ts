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

/** `localhost` (or a name under it), `127.x.x.x`, `[::1]` or `0.0.0.0`, with or without a port. */
const loopbackAuthority =
  /^(?:(?:[a-z\d-]+\.)*localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(?::\d{1,5})?$/i;

/** Whether a `Host` value (absent: not a browser) or an `Origin` URL (absent: not cross-site) names this machine. */
function isLoopback(value: string | undefined, isOrigin: boolean): boolean {
  if (value === undefined) return true;
  if (!isOrigin) return loopbackAuthority.test(value);
  const authority = /^https?:\/\/([^/]+)$/i.exec(value)?.[1];
  return authority !== undefined && loopbackAuthority.test(authority);
}

/**
 * Without keys the gateway serves anyone who can reach it, so only this machine's own clients: a
 * request sent by a web page of another `Origin` (a form or `fetch` from any web site, a
 * WebSocket) is refused with 403 before any upstream call, and so — on the gateway's own server
 * (`listen()`, loopback only; a mounted app cannot know its host names) — is one naming another
 * `Host` (a DNS-rebinding page). Undefined (served) with keys: they are the check.
 */
export function localRefusal(
  state: GatewayState,
  header: (name: string) => string | undefined,
): WireError | undefined {
  if (state.keys.length > 0) return undefined;
  const hostFits = !state.localOnly || isLoopback(header('host'), false);
  if (hostFits && isLoopback(header('origin'), true)) return undefined;
  return {
    status: 403,
    errorClass: 'auth',
    code: 'permission_error',
    message: 'without gateway keys only local clients are served: this request names another host or origin',
  };
}

/**
 * A request (or socket message) arriving while the gateway shuts down: another instance (or this
 * one, restarted) serves it — the SDKs' own retry is right, soon.
 */
export const shuttingDown: WireError = {
  status: 503,
  errorClass: 'server_error',
  message: 'the gateway is shutting down',
  retryable: true,
  retryAfterSeconds: 1,
};

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
  if (!state.accepting) return shuttingDown;
  return keyRefusalOf(state, caller, header, query);
}

/** {@link refusalOf} without the shutdown refusal: for what is served while shutting down (`/metrics`). */
export function keyRefusalOf(
  state: GatewayState,
  caller: Caller,
  header: (name: string) => string | undefined,
  query: () => string | undefined,
): WireError | undefined {
  if (state.keys.length === 0) return localRefusal(state, header);
  caller.key = findKey(state.keys, presentedKey(header, query));
  return caller.key === undefined ? unauthorized().wire : undefined;
}
