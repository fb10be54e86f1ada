/**
 * HTTP pipelining on the gateway's own server: a request pipelined behind another is served only
 * when its reply owns the connection (one at a time, in order), a queued reply closes with its
 * connection, and Node's request timeouts do not count the time a request waits for its turn.
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { codecs } from '../codecs/index.ts';

/**
 * A whole HTTP/1.1 error response with a body in OpenAI's shape (no protocol is known), for a
 * socket no response object stands for; the connection closes after it.
 */
export function rawErrorResponse(status: number, message: string, extraHeaders = ''): string {
  const body = JSON.stringify(
    codecs['openai-chat'].encodeError({ status, errorClass: 'invalid_request', message }).body,
  );
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n${extraHeaders}` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}

/** The reply being written on `socket` (Node's `_httpMessage`), unless none is or it is finished. */
export function inFlightOn(socket: Duplex): ServerResponse | undefined {
  const message = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
  return message === undefined || message === null || message.writableFinished ? undefined : message;
}

/** Per connection, the responses queued behind another one on it (HTTP pipelining). */
const queuedOn = new WeakMap<Socket, Set<ServerResponse>>();

/**
 * Most requests queued behind the one being answered on a connection before the gateway stops
 * reading it (nginx reads a connection's next request only once it has answered the one before).
 */
export const maxQueuedPerConnection = 32;

/**
 * Node stops reading a connection (and its parser) when the replies on it hold more unsent data
 * than the socket's high-water mark, and reads on once they hold less — but a queued reply has
 * written nothing, so a client pipelining tiny requests behind a slow one had every one parsed, a
 * request and a response object each (100,000 of them: 324 MB, then seconds of work when it
 * left). So each queued reply counts as `1/maxQueuedPerConnection` of that mark in Node's own
 * tally (`_onPendingData`, which a reply's buffered writes feed) until its turn: past
 * {@link maxQueuedPerConnection} queued, Node stops reading at the end of the bytes it has
 * (at most one 64 KiB read), and reads on when one is answered.
 */
function countQueued(outgoing: ServerResponse, socket: Socket, sign: 1 | -1): void {
  const pending = (outgoing as { _onPendingData?: (delta: number) => void })._onPendingData;
  pending?.call(outgoing, sign * Math.ceil(socket.writableHighWaterMark / maxQueuedPerConnection));
}

/**
 * A response queued behind another on its connection (a pipelined request) has no socket yet, and
 * Node never emits its `close` if the connection closes first: a client that left would go
 * unnoticed (its upstream call run to the end, billed and logged 200; a stream held open until the
 * total timeout, keeping an upstream connection). Such a response is destroyed and its `close`
 * emitted when the connection closes, as a response holding the socket gets; once it holds the
 * socket, Node's own `close` applies. One listener per connection, however many are queued; at
 * most {@link maxQueuedPerConnection} queued before Node stops reading the connection
 * ({@link countQueued}).
 */
export function closeWithConnection(incoming: IncomingMessage, outgoing: ServerResponse): void {
  const socket = incoming.socket as Socket | null;
  if (socket === null) return;
  let queued = queuedOn.get(socket);
  if (queued === undefined) {
    const responses = new Set<ServerResponse>();
    queued = responses;
    queuedOn.set(socket, responses);
    socket.once('close', () => {
      for (const response of responses) {
        if (response.writableFinished) continue;
        response.destroy();
        response.emit('close');
      }
      responses.clear();
    });
  }
  queued.add(outgoing);
  countQueued(outgoing, socket, 1);
  const settled = () => {
    if (queued.delete(outgoing)) countQueued(outgoing, socket, -1);
  };
  outgoing.once('socket', settled);
  outgoing.once('finish', settled);
}

/**
 * Runs `serve` once the response owns its connection, on every route (generation, token counts,
 * listings, stored replies). Node emits a `request` for every pipelined request at once, their
 * responses queued behind the one on the socket: served at once, 50 requests in one write made 50
 * concurrent upstream calls, all started (and billed) even when the client left after the first,
 * and a count or a stored reply's read or delete ran before the requests sent ahead of it had been
 * answered. So a queued request waits, its body unread, until its response gets the socket
 * (`socket`), or until the connection closes first ({@link closeWithConnection} emits the
 * response's `close`): then its client is gone, and `gone` runs instead when given (a generation
 * logs its 499 without being served: nothing goes upstream, no key limit is taken), else `serve`
 * with the client already gone. A request whose body has not all arrived when its turn comes has
 * `requestTimeoutMs` from then ({@link deferTimeout}).
 */
export function whenItsTurn(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  requestTimeoutMs: number,
  serve: () => void,
  gone?: () => void,
): void {
  if (outgoing.socket !== null) {
    serve();
    return;
  }
  const start = () => {
    outgoing.off('socket', start);
    outgoing.off('close', start);
    if (outgoing.socket === null && gone !== undefined) return gone();
    if (outgoing.socket !== null && !incoming.complete) turnDeadline(incoming, outgoing, requestTimeoutMs);
    serve();
  };
  outgoing.once('socket', start);
  outgoing.once('close', start);
}

/** The requests whose body was still arriving when their turn came: under their own deadline. */
const underTurnDeadline = new WeakSet<IncomingMessage>();

/** What a request whose body has not arrived by its deadline gets (Node's word, with a body). */
const arrivedLate = 'the request did not arrive in time';

/**
 * Node's `requestTimeout` counts from a request's first byte, the time it waited for its turn
 * included; from its turn on, its body has `requestTimeoutMs` to arrive, else a 408 (its reply has
 * not begun: the gateway answers once the body is read) and the connection closes.
 */
function turnDeadline(incoming: IncomingMessage, outgoing: ServerResponse, requestTimeoutMs: number): void {
  underTurnDeadline.add(incoming);
  const socket = outgoing.socket!;
  const timer = setTimeout(() => {
    if (!incoming.complete && !socket.destroyed) timeOut(socket);
  }, requestTimeoutMs).unref();
  outgoing.once('close', () => clearTimeout(timer));
  incoming.once('end', () => clearTimeout(timer));
}

/** A 408 on `socket` unless the reply on it has begun, and the connection closed. */
function timeOut(socket: Duplex): void {
  if (socket.writable && inFlightOn(socket)?.headersSent !== true)
    socket.write(rawErrorResponse(408, arrivedLate));
  socket.destroy();
}

/** The request Node's parser is reading on `socket` (its `parser.incoming`), if any. */
function parsingOn(socket: Duplex): IncomingMessage | null | undefined {
  return (socket as { parser?: { incoming?: IncomingMessage | null } | null }).parser?.incoming;
}

/**
 * For the server's `clientError` on a request timeout (Node's `requestTimeout` or
 * `headersTimeout`, checked per connection from the first byte of the request being parsed):
 * whether it is deferred because that request is waiting for its turn behind a reply still being
 * written — its body unread, or its headers cut where Node stopped reading — so the clock counted
 * the wait, not the client. Cut there, a long stream's pipelined request behind it, or the
 * connection under the stream, was ended (the stream finished, then the connection closed without
 * an answer for it). Deferred, its body has its own deadline from its turn ({@link whenItsTurn});
 * headers cut short have Node's `headersTimeout` again once no reply is in flight.
 */
export function deferTimeout(socket: Duplex): boolean {
  const inFlight = inFlightOn(socket);
  if (inFlight === undefined) return false;
  const parsing = parsingOn(socket);
  if (parsing === null || parsing === undefined || parsing.complete) {
    const server = (socket as { server?: { headersTimeout?: number } }).server;
    headersDeadlineAfterReplies(socket, parsing ?? null, server?.headersTimeout ?? 60_000);
    return true;
  }
  return inFlight.req !== parsing || underTurnDeadline.has(parsing);
}

/**
 * Once no reply is being written on `socket`, a request whose headers had begun (`parsing` still
 * the last whole one) has `headersTimeoutMs` for them; Node checks a connection's request once.
 */
function headersDeadlineAfterReplies(
  socket: Duplex,
  parsing: IncomingMessage | null,
  headersTimeoutMs: number,
): void {
  const inFlight = inFlightOn(socket);
  if (inFlight !== undefined) {
    inFlight.once('finish', () => headersDeadlineAfterReplies(socket, parsing, headersTimeoutMs));
    return;
  }
  const timer = setTimeout(() => {
    const now = parsingOn(socket) ?? null;
    if (!socket.destroyed && (now === parsing || now === null) && inFlightOn(socket) === undefined)
      timeOut(socket);
  }, headersTimeoutMs).unref();
  socket.once('close', () => clearTimeout(timer));
}
