/**
 * A generation's reply before it leaves: Hono's routes hand it on as a web `Response`, the gateway's
 * own server writes it to Node's response (see `node-listener.ts`). A stream written to Node's
 * response directly is already on its way: {@link sentReply}.
 */
import type { ServerResponse } from 'node:http';
import { Response as PlainResponse } from 'undici';
import { inboundCodecs } from '../codecs/index.ts';
import type { InboundProtocol, WireError } from '../codecs/types.ts';
import { deliverWithin } from './delivery.ts';

/** Status, headers and body of a reply; `body` undefined for {@link sentReply}. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string | ReadableStream<Uint8Array> | undefined;
  /** An error reply's classified error (for a client that is not HTTP: the WebSocket). */
  wire?: WireError;
}

/** A reply already being written to Node's response (a stream written directly). */
export const sentReply: Reply = Object.freeze({ status: 200, headers: Object.freeze({}), body: undefined });

/**
 * What a Hono handler returns once it has written the reply itself: @hono/node-server writes
 * nothing for a response carrying this header. undici's class, not the global one: the server
 * replaces the global with its lightweight class, whose replies it always writes.
 */
const alreadySent = new PlainResponse(null, { headers: { 'x-hono-already-sent': 'true' } });

/** The reply as a web `Response` (Hono). */
export function toResponse(reply: Reply): Response {
  if (reply === sentReply) return alreadySent as unknown as Response;
  return new Response(reply.body ?? null, { status: reply.status, headers: reply.headers });
}

/**
 * Writes a string reply to Node's response (the gateway's own server never makes a web stream);
 * with `sendTimeoutMs`, a reply its client leaves unread that long is cut off ({@link deliverWithin}).
 */
export function writeReply(outgoing: ServerResponse, reply: Reply, sendTimeoutMs?: number): void {
  if (reply === sentReply) return;
  const { body } = reply;
  if (typeof body !== 'string') throw new TypeError('a web-stream reply cannot be written to Node directly');
  reply.headers['content-length'] = String(Buffer.byteLength(body));
  outgoing.writeHead(reply.status, reply.headers);
  outgoing.end(body);
  if (sendTimeoutMs !== undefined) deliverWithin(outgoing, sendTimeoutMs);
}

/**
 * The request id as the client's protocol names it: `x-request-id` always, and `request-id` too for
 * Anthropic clients (the Anthropic SDK reads that one into its errors' and replies' request id).
 */
export function requestIdHeaders(protocol: InboundProtocol, requestId: string): Record<string, string> {
  return protocol === 'anthropic-messages'
    ? { 'x-request-id': requestId, 'request-id': requestId }
    : { 'x-request-id': requestId };
}

/**
 * The error reply in the client protocol's shape; `overheadMs`, where the gateway measured its own
 * time for the request, is sent as `x-switchyard-overhead-ms` (as a whole reply's is).
 */
export function errorReply(
  protocol: InboundProtocol,
  wire: WireError,
  requestId: string,
  overheadMs?: number,
): Reply {
  const encoded = inboundCodecs[protocol].encodeError(wire, requestId);
  const reply: Reply = {
    status: encoded.status,
    headers: {
      ...encoded.headers,
      'content-type': 'application/json',
      ...requestIdHeaders(protocol, requestId),
      // A request that did not arrive in time: its connection is not kept (RFC 9110 §15.5.9).
      ...(encoded.status === 408 ? { connection: 'close' } : {}),
      ...(wire.retryable === undefined ? {} : { 'x-should-retry': String(wire.retryable) }),
    },
    body: JSON.stringify(encoded.body),
    wire,
  };
  if (overheadMs !== undefined) reply.headers['x-switchyard-overhead-ms'] = overheadMs.toFixed(3);
  return reply;
}

/** Each error response's classified error, for the access log of the route that answers it. */
const wires = new WeakMap<Response, WireError>();

/** The error response in the client protocol's shape. */
export function errorResponse(protocol: InboundProtocol, wire: WireError, requestId: string): Response {
  const response = toResponse(errorReply(protocol, wire, requestId));
  wires.set(response, wire);
  return response;
}

/** The classified error an {@link errorResponse} answers with (undefined for any other response). */
export function wireOf(response: Response): WireError | undefined {
  return wires.get(response);
}
