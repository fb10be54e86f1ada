/**
 * The request listener of the gateway's own HTTP server. The generation routes (Chat Completions,
 * Responses, Messages at their exact paths, with or without a query; Gemini's `generateContent` and
 * `streamGenerateContent`) are served straight from Node's request and response; every other request goes to the Hono app
 * through @hono/node-server. Why: that adaptation — a web `Request` over Node's request, Hono's
 * context and dispatch, a web `Response` taken apart again — was ~20 µs of CPU and ~2 KB of garbage
 * per call on the gateway's hottest path (bench/gateway.ts; /proc CPU per call and
 * sampled allocations), for routes whose only job is to hand Node's request to `serveGeneration`.
 * Both ways share the caller check (`caller.ts`), the generation (`generate.ts`) and the reply
 * (`reply.ts`); the Hono app still serves every route (mounted, or `app.request` in tests).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { codecs } from '../codecs/index.ts';
import type { InboundProtocol, ProtocolName } from '../codecs/types.ts';
import { type Caller, keyRefusalOf, refusalOf, requestIdFrom } from './caller.ts';
import { clientClosed, toWireError } from './errors.ts';
import type { GenerationCall } from './generation-call.ts';
import { serveGeneration } from './generate.ts';
import { logRefusal } from './access-log.ts';
import { deliverWithin } from './delivery.ts';
import { nodeHeader } from './inbound.ts';
import { ambiguousPathError, isAmbiguousPath, pathOfTarget, protocolOfPath } from './paths.ts';
import {
  closeWithConnection,
  deferTimeout,
  inFlightOn,
  rawErrorResponse,
  whenItsTurn,
} from './pipelining.ts';
import { errorReply, type Reply, sentReply, writeReply } from './reply.ts';
import type { GatewayState } from './state.ts';

export type Listener = (incoming: IncomingMessage, outgoing: ServerResponse) => void;
type Fetch = Parameters<typeof getRequestListener>[0];

/** The generation routes served directly: exact paths (any query aside), POST only. */
const directRoutes = new Map<string, ProtocolName>([
  ['/v1/chat/completions', 'openai-chat'],
  ['/v1/responses', 'openai-responses'],
  ['/v1/messages', 'anthropic-messages'],
]);

/**
 * A Gemini generation path, as the Hono app routes it (`/v1beta/models/:action` or `/v1/models/:action`,
 * the action `{model}:{method}` once decoded), with an optional query (`alt=sse`, `key=`).
 */
const geminiPath = /^\/(?:v1beta|v1)\/models\/([^/?]+)(?:\?(.*))?$/;
const geminiAction = /^(.+):(generateContent|streamGenerateContent)$/s;

/** What a directly served request adds to its call: the Gemini model and mode from its path. */
type Route = Pick<GenerationCall, 'protocol' | 'path' | 'decodeContext' | 'jsonArray'> & {
  query?: URLSearchParams;
};

/** The directly served route of a request, or undefined for the general way. */
function directRoute(incoming: IncomingMessage): Route | undefined {
  if (incoming.method !== 'POST') return undefined;
  const url = incoming.url ?? '';
  const protocol = directRoutes.get(url);
  if (protocol !== undefined) return { protocol, path: url };
  // With a query (read for its `key=` only, as the app's routes do): looked up by its path. A URL
  // without one pays no split: the lookup above took it whole.
  const queryAt = url.indexOf('?');
  if (queryAt !== -1) {
    const path = url.slice(0, queryAt);
    const fixed = directRoutes.get(path);
    if (fixed !== undefined)
      return { protocol: fixed, path, query: new URLSearchParams(url.slice(queryAt + 1)) };
  }
  const gemini = geminiPath.exec(url);
  if (gemini === null) return undefined;
  let action: string;
  try {
    action = decodeURIComponent(gemini[1]!);
  } catch {
    return undefined;
  }
  const match = geminiAction.exec(action);
  if (match === null) return undefined;
  const query = new URLSearchParams(gemini[2] ?? '');
  const stream = match[2] === 'streamGenerateContent';
  return {
    protocol: 'gemini',
    path: queryAt === -1 ? url : url.slice(0, queryAt),
    decodeContext: { model: match[1]!, stream },
    jsonArray: stream && query.get('alt') !== 'sse',
    query,
  };
}

/** The listener: {@link directRoutes} and Gemini's generation served here, the rest by `fetch` (the Hono app). */
export function createNodeListener(state: GatewayState, fetch: Fetch, hostname: string): Listener {
  const general = getRequestListener(fetch, { hostname, errorHandler: answerUnreadable });
  return (incoming, outgoing) => {
    // Draining (shutting down): every reply closes its connection (`connection: close`), so a
    // client's next request opens a new one — to another instance, once `/readyz` has said 503. A
    // request pipelined behind another is looked at again when its turn comes (before it is served):
    // the drain may have begun since it arrived.
    if (outgoing.socket === null) {
      closeWithConnection(incoming, outgoing);
      outgoing.once('socket', () => {
        if (!state.accepting) outgoing.shouldKeepAlive = false;
      });
    }
    if (!state.accepting) outgoing.shouldKeepAlive = false;
    const route = directRoute(incoming);
    if (incoming.headers.host === undefined && incoming.httpVersion === '1.1') {
      // RFC 9112 §3.2; the server is created with `requireHostHeader: false` only so that this
      // answer has a body (Node's own has none).
      const protocol = route?.protocol ?? 'openai-chat';
      answerClosing(protocol, incoming, outgoing, 400, 'an HTTP/1.1 request needs a Host header');
      return;
    }
    // A fixed direct route's path is exact; any other may read as another path (`paths.ts`).
    if (route === undefined || route.protocol === 'gemini') {
      const path = pathOfTarget(incoming.url ?? '/');
      if (isAmbiguousPath(path)) {
        whenItsTurn(
          incoming,
          outgoing,
          state.requestTimeoutMs,
          () => answerAmbiguousPath(incoming, outgoing, path),
          unanswered,
        );
        return;
      }
    }
    if (route === undefined) {
      if (declaresLargeBody(incoming)) closeIfUnread(incoming, outgoing);
      // Its client gone before its turn, a request is served only on a route that logs it.
      const gone = outgoing.socket === null && !isLoggedPath(incoming) ? unanswered : undefined;
      const serve = () => void general(incoming, outgoing).then(() => cutIfUnread(state, outgoing));
      whenItsTurn(incoming, outgoing, state.requestTimeoutMs, serve, gone);
    } else serveDirect(state, route, incoming, outgoing);
  };
}

/**
 * A reply of the Hono app's routes (a stored reply's read, a listing, a count), once written: cut
 * off as a generation's is if its client takes nothing of it for `send_timeout_seconds`.
 */
function cutIfUnread(state: GatewayState, outgoing: ServerResponse): void {
  if (outgoing.writableEnded) deliverWithin(outgoing, state.sendTimeoutMs);
}

/** What a request whose client left before its turn gets on a route that does not log it: nothing. */
const unanswered = () => {};

/** The paths whose requests the access log names (the keyed routes, `/metrics`): `/v1…`, `/switchyard…`. */
const loggedPath = /^\/(?:v1|v1beta|switchyard|metrics)(?:[/?]|$)/;

function isLoggedPath(incoming: IncomingMessage): boolean {
  return loggedPath.test(pathOfTarget(incoming.url ?? '/'));
}

/**
 * The server's `checkContinue` handler: a request sent with `Expect: 100-continue` gets its
 * `100 Continue` when the gateway first reads the body, not on arrival (Node's default). So a
 * refusal answered before the body is read (a bad key, a declared length over the limit, an unknown
 * route) reaches the client before it sends a byte of the body (RFC 9110 §10.1.1), and closes the
 * connection: the client may never send that body, and Node would wait for it before reading the
 * connection's next request.
 */
export function continueOnRead(listener: Listener): Listener {
  return (incoming, outgoing) => {
    let continued = false;
    const read = incoming._read;
    incoming._read = function (this: IncomingMessage, size: number) {
      incoming._read = read;
      if (!continued && !outgoing.headersSent) outgoing.writeContinue();
      continued = true;
      return read.call(this, size);
    };
    const writeHead = outgoing.writeHead;
    outgoing.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
      if (!continued) this.setHeader('connection', 'close');
      continued = true;
      return writeHead.apply(this, args);
    } as ServerResponse['writeHead'];
    listener(incoming, outgoing);
  };
}

/**
 * An error reply in `protocol`'s shape (OpenAI's off the generation routes) written to Node's
 * response, the connection closed after it.
 */
function answerClosing(
  protocol: InboundProtocol,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  status: number,
  message: string,
): void {
  const wire = { status, errorClass: 'invalid_request' as const, message };
  const reply = errorReply(protocol, wire, requestIdFrom(nodeHeader(incoming, 'x-request-id')));
  reply.headers.connection = 'close';
  safely(outgoing, () => writeReply(outgoing, reply));
}

/**
 * The 404 of a path refused as sent (`paths.ts`), in its protocol's shape, served in its turn on
 * the connection; its body unread, the connection closes unless that body is small.
 */
function answerAmbiguousPath(incoming: IncomingMessage, outgoing: ServerResponse, path: string): void {
  const anthropic = nodeHeader(incoming, 'anthropic-version') !== undefined;
  const requestId = requestIdFrom(nodeHeader(incoming, 'x-request-id'));
  const reply = errorReply(
    protocolOfPath(path, anthropic),
    ambiguousPathError(incoming.method ?? 'GET', path),
    requestId,
  );
  if (!incoming.complete && declaresLargeBody(incoming)) reply.headers.connection = 'close';
  safely(outgoing, () => writeReply(outgoing, reply));
}

/**
 * What @hono/node-server answers when it cannot make a web `Request` of Node's (a `Host` that is no
 * host name, a backslash in the path, an absolute URL that does not parse: its `RequestError`) —
 * otherwise an empty 400 — or when a handler's promise rejects (never expected: the app answers
 * every failure itself): an error body in OpenAI's shape, as for Node's own parse errors
 * ({@link answerClientError}), and the connection closes.
 */
function answerUnreadable(error: unknown): Response {
  const malformed = error instanceof Error && error.name === 'RequestError';
  const status = malformed ? 400 : 500;
  const message = malformed
    ? `malformed HTTP request (${error.message.slice(0, 80)})`
    : 'the gateway failed to answer';
  const body = codecs['openai-chat'].encodeError({
    status,
    errorClass: malformed ? 'invalid_request' : 'server_error',
    message,
  }).body;
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json',
      'x-request-id': requestIdFrom(undefined),
      connection: 'close',
    },
  });
}

/**
 * The server's `checkExpectation` handler: an `Expect` other than `100-continue` is a 417 (Node's
 * answer) with an error body in OpenAI's shape, and the connection closes.
 */
export function answerExpectation(incoming: IncomingMessage, outgoing: ServerResponse): void {
  answerClosing('openai-chat', incoming, outgoing, 417, 'the only expectation served is 100-continue');
}

/** The server's `connect` handler: the gateway is no proxy, a `CONNECT` is a 405 with an error body. */
export function answerConnect(_incoming: IncomingMessage, socket: Duplex): void {
  answerAndClose(
    socket,
    rawErrorResponse(405, 'CONNECT is not served: the gateway is no proxy', 'allow: GET, POST\r\n'),
  );
}

/** How long a client whose connection the gateway is closing has to read the last answer on it. */
export const closeGraceMs = 1000;

/**
 * Answers a connection Node has handed over (a `CONNECT`, a refused WebSocket upgrade) and closes
 * it. Node keeps no listener on such a socket: a client that reset it made the write's error an
 * uncaught one (the process exited), and one that kept its side open kept the connection for good
 * (nothing read its end). So an error ends it, what the client sends is read and discarded, and it
 * is ended after {@link closeGraceMs} at the latest.
 */
export function answerAndClose(socket: Duplex, response: string): void {
  socket.on('error', () => socket.destroy());
  socket.end(response);
  socket.resume();
  setTimeout(() => socket.destroy(), closeGraceMs).unref();
}

/**
 * A reply the Hono app writes before the request body has arrived (a 413, a refusal) closes the
 * connection, as the direct routes' replies do: otherwise Node reads and drops the rest of the body
 * to keep the connection, however large it is declared.
 */
function closeIfUnread(incoming: IncomingMessage, outgoing: ServerResponse): void {
  const writeHead = outgoing.writeHead;
  outgoing.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    if (!incoming.complete) this.setHeader('connection', 'close');
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}

function serveDirect(
  state: GatewayState,
  route: Route,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): void {
  const { protocol, query } = route;
  const header = (name: string) => nodeHeader(incoming, name);
  const caller: Caller = { requestId: requestIdFrom(header('x-request-id')), key: undefined };
  const send = (reply: Reply) => {
    // Answered before reading the body (a refusal, a 413): Node reads and drops the rest to keep
    // the connection, unbounded, so a body that is not small and declared closes the connection.
    if (reply !== sentReply && !incoming.complete && !smallBody(incoming)) reply.headers.connection = 'close';
    safely(outgoing, () => writeReply(outgoing, reply, state.sendTimeoutMs));
  };
  const generate = () => {
    // In its turn: a request pipelined before the drain began is refused as a new one once it has.
    const refusal = refusalOf(state, caller, header, () => query?.get('key') ?? undefined);
    if (refusal !== undefined) {
      send(errorReply(protocol, refusal, caller.requestId));
      logRefusal(state, { protocol, path: route.path, requestId: caller.requestId }, refusal);
      return;
    }
    // The optional fields are set after the literal, not spread into its middle: every property a
    // literal defines after a spread is a runtime call (DefineKeyedOwnPropertyInLiteral, ~1.4k
    // instructions each): ~7k instructions a call under callgrind for these five.
    const call: GenerationCall = {
      protocol,
      path: route.path,
      requestId: caller.requestId,
      key: caller.key,
      incoming,
      outgoing,
      directWrites: true,
    };
    if (route.decodeContext !== undefined) {
      call.decodeContext = route.decodeContext;
      call.jsonArray = route.jsonArray;
    }
    void serveGeneration(state, call, send).catch((error: unknown) => {
      // `serveGeneration` answers every failure itself; this is a failure to answer.
      state.logger.warn('gateway: unexpected error', {
        error: error instanceof Error ? error.name : 'unknown',
      });
      if (!outgoing.headersSent) send(errorReply(protocol, toWireError(error), caller.requestId));
      else if (!outgoing.writableEnded) outgoing.destroy();
    });
  };
  // Only a request queued behind another can lose its client before its turn.
  const gone =
    outgoing.socket === null ? () => logNeverServed(state, route, caller, header, query) : undefined;
  whenItsTurn(incoming, outgoing, state.requestTimeoutMs, generate, gone);
}

/**
 * A generation pipelined behind another whose client left before its turn: logged 499
 * `cancelled` under its key (when it presented a valid one), its body never read — no decode, no
 * key limit taken (a key at its `max_in_flight` had every such request logged 429), nothing sent
 * upstream.
 */
function logNeverServed(
  state: GatewayState,
  route: Route,
  caller: Caller,
  header: (name: string) => string | undefined,
  query: URLSearchParams | undefined,
): void {
  keyRefusalOf(state, caller, header, () => query?.get('key') ?? undefined);
  const { protocol, path } = route;
  logRefusal(state, { protocol, path, requestId: caller.requestId, key: caller.key }, clientClosed().wire);
}

/** Most bytes of an unread request body Node may drain to keep the connection open. */
const drainableBytes = 64 * 1024;

/** Whether the request declares a body of at most {@link drainableBytes} (a chunked one is never small). */
function smallBody(incoming: IncomingMessage): boolean {
  const length = Number(nodeHeader(incoming, 'content-length') ?? Number.NaN);
  return length <= drainableBytes;
}

/** Whether the request declares a body Node should not drain: chunked, or longer than {@link drainableBytes}. */
function declaresLargeBody(incoming: IncomingMessage): boolean {
  if (incoming.headers['transfer-encoding'] !== undefined) return true;
  return Number(nodeHeader(incoming, 'content-length') ?? 0) > drainableBytes;
}

/** Runs a write; one that throws (the reply cannot be written) ends the connection instead of the process. */
function safely(outgoing: ServerResponse, write: () => void): void {
  try {
    write();
  } catch {
    outgoing.destroy();
  }
}

/** The status and message of an HTTP error Node's parser meets before a request exists. */
function framingError(code: string | undefined): [number, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'the request headers are too large'];
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return [413, 'the chunk extensions are too large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'the request did not arrive in time'];
  return [400, `malformed HTTP request${code === undefined ? '' : ` (${code})`}`];
}

/** Sockets whose parse error waits for the replies before it on the connection ({@link endAfterReplies}). */
const closingAfterReplies = new WeakSet<Duplex>();

/**
 * The server's `clientError` handler: what Node itself would send (431, 413, 408 or 400, then the
 * connection closes), with an error body in OpenAI's shape — no protocol is known before the
 * request is — instead of an empty one. When the bytes that do not parse follow a request still
 * being answered on the connection (pipelined garbage, stray bytes after `Connection: close`), the
 * 400 is not written: it would be read as that request's answer, and destroying the socket would
 * cut the reply (and cancel its upstream call). Those replies finish first, then the connection
 * closes ({@link endAfterReplies}).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const reset = error.code === 'ECONNRESET';
  // A request waiting for its turn: Node's clock counted the wait, not the client.
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && deferTimeout(socket)) return;
  // The parser stays in error: every later chunk on the connection comes here again.
  if (!reset && closingAfterReplies.has(socket)) return;
  const inFlight = inFlightOn(socket);
  // A request not yet whole is the one that does not parse (its body cut short: the client left
  // mid-body, a broken chunk): its reply goes (a 400 if not begun) and the connection with it.
  if (!reset && inFlight?.req.complete === true && !socket.destroyed) {
    closingAfterReplies.add(socket);
    endAfterReplies(socket);
    return;
  }
  if (!reset && socket.writable && inFlight?.headersSent !== true) {
    const [status, message] = framingError(error.code);
    socket.write(rawErrorResponse(status, message));
  }
  socket.destroy();
}

/**
 * Ends the connection once no reply is being written on it: at each reply's `finish` (after Node's
 * own listener, which hands the socket to the next pipelined reply, if any) it looks again. A
 * client that keeps its side open has {@link closeGraceMs} after the end to read it.
 */
function endAfterReplies(socket: Duplex): void {
  const inFlight = inFlightOn(socket);
  if (inFlight?.req.complete === true) {
    inFlight.once('finish', () => endAfterReplies(socket));
    return;
  }
  // A pipelined request cut short by the bytes that did not parse: its body never comes.
  if (inFlight !== undefined) {
    socket.destroy();
    return;
  }
  socket.end();
  setTimeout(() => socket.destroy(), closeGraceMs).unref();
}
