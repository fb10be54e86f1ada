/**
 * One inbound generation request (`GenerationCall`), its bookkeeping while it is served (`Served`)
 * and the watch on its client (`watchClient`): what `generate.ts` and its two halves —
 * `generate-request.ts` (the request in) and `generate-response.ts` (the reply out) — share.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DecodeContext, InboundProtocol } from '../codecs/types.ts';
import type { CanonicalResponse } from '../core/request.ts';
import type { Item } from '../core/transcript.ts';
import { type GatewayKey } from './keys.ts';
import type { Reservation } from '../state/types.ts';
import { type LoggedRequest } from './access-log.ts';
import { HeldBody } from './body-hold.ts';
import { type Framer } from './stream-body.ts';

/** One inbound generation request. */
export interface GenerationCall {
  protocol: InboundProtocol;
  /** The web request (Hono); the gateway's own server passes Node's `incoming` instead. */
  request?: Request;
  /** The request's path (access log). */
  path: string;
  requestId: string;
  key: GatewayKey | undefined;
  decodeContext?: DecodeContext;
  /** Gemini streams without `alt=sse`: one JSON array instead of SSE. */
  jsonArray?: boolean;
  /** How a stream's frames become text (default: SSE, or the JSON array); the WebSocket's own lines. */
  framer?: Framer;
  /** The body already parsed (a WebSocket message): not read from `request` / `incoming`. */
  body?: unknown;
  /** The size of `body` as it arrived, counted against `gateway.max_request_bytes_in_flight`. */
  bodyBytes?: number;
  /** Aborted when the client gives the call up (a WebSocket cancel or close). */
  signal?: AbortSignal;
  /**
   * Node's response, when served by @hono/node-server: the client went away when it closes before
   * it finished (reading the request's `signal` would make the server build an AbortController per
   * request), and streams are written to it directly.
   */
  outgoing?: ServerResponse;
  /** Node's request, when served by @hono/node-server: headers and body are read from it directly. */
  incoming?: IncomingMessage;
  /** True when the gateway's own server serves the request: streams are written to `outgoing` directly. */
  directWrites?: boolean;
  /** A Responses WebSocket's connection-local state (`responses-websocket.ts`). */
  connection?: ResponsesConnection;
}

/**
 * What a Responses WebSocket keeps for its next `response.create`: its most recent response's id
 * and conversation when that response was not stored (`store: false`), which a
 * `previous_response_id` naming it continues from without the state store. One per connection,
 * replaced (or cleared, by a stored response) by each response that completes; gone with the
 * connection.
 */
export interface ResponsesConnection {
  last?: { id: string; transcript: Item[] };
  /**
   * What `last` holds of `max_request_bytes_in_flight` (and its key's share), as a body does: a
   * conversation over 64 KiB kept on each of many sockets is bounded as their bodies would be.
   * Given back when the connection closes.
   */
  held?: HeldBody;
  /** The connection has closed: nothing more is kept (a response ending after it holds nothing). */
  closed?: boolean;
}

/**
 * Calls `onGone` when the client goes away before the reply is finished (Node's response closes
 * unfinished, else the web request's or the call's signal aborts); returns the unsubscribe. Shared
 * by the generation and the token-count routes.
 */
export function watchClient(
  call: Pick<GenerationCall, 'outgoing' | 'request' | 'signal'>,
  onGone: () => void,
): () => void {
  const { outgoing } = call;
  if (outgoing === undefined) {
    const signal = call.signal ?? call.request?.signal;
    if (signal === undefined) return () => {};
    signal.addEventListener('abort', onGone, { once: true });
    return () => signal.removeEventListener('abort', onGone);
  }
  // Gone already (it left while the body was read): the close was before this listener.
  if (outgoing.destroyed || outgoing.socket?.destroyed === true) {
    onGone();
    return () => {};
  }
  const listener = () => {
    if (!outgoing.writableFinished) onGone();
  };
  outgoing.once('close', listener);
  return () => outgoing.off('close', listener);
}

/** Per-request bookkeeping: what the access log and metrics take (`access-log.ts`), and the call's own. */
export interface Served extends LoggedRequest {
  call: GenerationCall;
  /** Upstream tool name → the client's, when a name had to be renamed (`tool-names.ts`). */
  toolNames?: Map<string, string>;
  /** What the call billed, failed calls included (settled against the key's limits and budget). */
  billed?: CanonicalResponse['usage'];
  /** The key's reservation, settled when the request ends. */
  reservation?: Reservation;
  /**
   * For a key with a budget: the ids of the fallbacks its reservation was priced on, the only ones
   * routing may try (a fallback without a price would serve the call for $0).
   */
  budgetFallbacks?: ReadonlySet<string>;
  /** Request body bytes counted against the bytes-in-flight bound until the request ends. */
  held: HeldBody;
  /** Counted in its key's requests in flight (`max_in_flight`), until the request ends. */
  counted?: boolean;
  /**
   * The client speaks another protocol than the model it named: its cap, sized for its own vendor's
   * models, is lowered to this model's output limit (`CallOptions.lowerOutputCap`), not refused.
   */
  foreignCap?: boolean;
}
