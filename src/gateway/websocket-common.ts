/**
 * What the gateway's WebSocket protocols share — Switchyard's own at `/switchyard/v1/ws`
 * (`websocket.ts`) and OpenAI's Responses WebSocket mode at `/v1/responses`
 * (`responses-websocket.ts`): the upgrade (the key checked before a frame is read, a key's
 * `max_websockets`, a refused upgrade answered and closed), the open socket's life (its messages
 * held as HTTP bodies are, `websocket-hold.ts`; a frame `ws` refuses logged and counted; its place
 * in shutdown), a message read as JSON text, and a reply sent as the client takes it.
 *
 * A refused upgrade is answered and closed (`answerAndClose`) — a 429 in OpenAI's error shape for
 * a key holding its `max_websockets` open already. A message the socket cannot take (too large,
 * not UTF-8) closes it with the WebSocket's own code, logged and counted as the HTTP body's 413 or
 * 400 is (with its `closeCode`); the process never sees the error.
 */
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { InboundProtocol, WireError } from '../codecs/types.ts';
import { parseJson } from '../core/json-text.ts';
import { logRefusal } from './access-log.ts';
import { type Caller, refusalOf, requestIdFrom } from './caller.ts';
import { nodeHeader, tooManyValues } from './inbound.ts';
import { holdSocket, socketRefusal } from './key-limits.ts';
import type { GatewayKey } from './keys.ts';
import { answerAndClose } from './node-listener.ts';
import { errorReply, type Reply } from './reply.ts';
import type { GatewayState } from './state.ts';
import { holdIncomingMessages } from './websocket-hold.ts';

/** One WebSocket protocol the gateway serves: its path, its protocol's label, and how an open socket is served. */
export interface SocketProtocol {
  path: string;
  protocol: InboundProtocol;
  /**
   * Serves an open socket (its messages, its close) under the key of its upgrade. Returns what
   * shutdown calls after the grace period: each request still running ends with one final 503
   * error and the socket closes (1001).
   */
  serve(state: GatewayState, socket: WebSocket, key: GatewayKey | undefined): { goAway(): void };
}

/** Bytes the socket may hold unsent before the next read of the upstream waits. */
const sendBufferBytes = 1 << 20;

/**
 * Bytes a socket may hold unsent before it is ended: a client that sends but does not read would
 * otherwise make the gateway hold every refusal (replies wait at {@link sendBufferBytes} instead).
 */
const maxUnsentBytes = 16 << 20;

function sendText(socket: WebSocket, text: string): void {
  if (socket.readyState === socket.OPEN) socket.send(text);
}

/**
 * Sends an answer to a message (an error: not paced like replies); a socket whose client has
 * stopped reading is ended at once — a close frame could not reach it — and its calls with it.
 */
export function sendAnswer(socket: WebSocket, text: string): void {
  sendText(socket, text);
  if (socket.bufferedAmount > maxUnsentBytes) socket.terminate();
}

/**
 * Resolves once the socket holds less than {@link sendBufferBytes} unsent (or is closed). A client
 * that takes nothing for `timeoutMs` (`gateway.send_timeout_seconds`) is cut off: its streams'
 * upstream calls (and their pooled connections) are not held for it.
 */
async function drained(socket: WebSocket, timeoutMs: number, reply: SocketReply): Promise<void> {
  let deadline = performance.now() + timeoutMs;
  let unsent = socket.bufferedAmount;
  // A reply the client gives up stops waiting: it has nothing more to send.
  while (
    socket.bufferedAmount > sendBufferBytes &&
    socket.readyState === socket.OPEN &&
    !wasCancelled(reply)
  ) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Any progress restarts the wait: the timeout is between two writes the client took.
    if (socket.bufferedAmount < unsent) deadline = performance.now() + timeoutMs;
    unsent = socket.bufferedAmount;
    if (performance.now() >= deadline) socket.terminate();
  }
}

/** A reply being sent on a socket: its body's reader once it streams, and whether the client gave it up. */
export interface SocketReply {
  reader?: ReadableStreamDefaultReader<Uint8Array>;
  /** The client gave it up (and was told): nothing more is sent for it. */
  cancelled?: boolean;
  /** Its last message is out. */
  finished?: boolean;
}

/** Read through a reply (not narrowed away across an `await`: a cancel may come in between). */
const wasCancelled = (reply: SocketReply) => reply.cancelled === true;

function sendLines(socket: WebSocket, text: string): void {
  for (const line of text.split('\n')) if (line !== '') sendText(socket, line);
}

/**
 * Sends a successful reply's body (its framer's lines, one message each) as the client takes it:
 * each send waits while the socket holds a full buffer, and so the next upstream read
 * (pull-based). However it ends (done, an error, the client's cancel at any moment — also while
 * waiting for the buffer —, the socket's close), a stream not read to its end is cancelled here,
 * once: that ends the request (its upstream call, access log line, in-flight slot and held bytes).
 * A cancel of an ended stream changes nothing.
 */
export async function sendReply(
  state: GatewayState,
  socket: WebSocket,
  body: Reply['body'],
  entry: SocketReply,
): Promise<void> {
  try {
    await sendBody(state, socket, body, entry);
  } finally {
    if (body instanceof ReadableStream) (entry.reader ?? body).cancel().catch(() => {});
  }
}

async function sendBody(
  state: GatewayState,
  socket: WebSocket,
  body: Reply['body'],
  entry: SocketReply,
): Promise<void> {
  await drained(socket, state.sendTimeoutMs, entry);
  // Given up while it waited: the client was told; nothing of it is sent.
  if (wasCancelled(entry)) return;
  if (typeof body === 'string') {
    entry.finished = true;
    sendLines(socket, body);
    return;
  }
  if (body === undefined) return;
  const reader = body.getReader();
  entry.reader = reader;
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    // Ended, or cancelled by the client (which was told): nothing more for it.
    if (done || wasCancelled(entry)) return;
    sendLines(socket, decoder.decode(value));
    await drained(socket, state.sendTimeoutMs, entry);
    if (socket.readyState !== socket.OPEN) return;
  }
}

export const invalid = (message: string): WireError => ({
  status: 400,
  errorClass: 'invalid_request',
  message,
});

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

/** A message's size in bytes, as it arrived. */
export function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.byteLength, 0);
  return data.byteLength;
}

/**
 * A message as a JSON object and its size, or why it is refused (a 400). A binary frame is taken
 * when it is UTF-8 JSON (`ws` clients send a Buffer as binary).
 */
export function readMessage(
  data: RawData,
  isBinary: boolean,
): { message: Record<string, unknown>; bytes: number } | WireError {
  let text: string;
  let message: unknown;
  try {
    text = isBinary ? strictUtf8.decode(toBytes(data)) : String(data);
  } catch {
    return invalid('the message is not valid JSON text');
  }
  const tooMany = tooManyValues(text);
  if (tooMany !== undefined) return invalid(`the message holds ${tooMany}`);
  try {
    message = parseJson(text);
  } catch {
    return invalid('the message is not valid JSON text');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return invalid('every message is a JSON object');
  return { message: message as Record<string, unknown>, bytes: byteLength(data) };
}

/**
 * The close code `ws` gives a frame it refuses (by its error's `code`), and the HTTP status and
 * class a body refused so gets, for the access log and metrics: over the body limit 1009 (413),
 * not UTF-8 1007 (400), too many fragments 1008 (400), else a broken frame 1002 (400).
 */
function frameRefusal(state: GatewayState, code: string | undefined): { closeCode: number; wire: WireError } {
  switch (code) {
    case 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH':
    case 'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH':
      return {
        closeCode: 1009,
        wire: {
          status: 413,
          errorClass: 'invalid_request',
          message: `the message exceeds ${state.bodyLimit} bytes`,
        },
      };
    case 'WS_ERR_INVALID_UTF8':
      return { closeCode: 1007, wire: invalid('the message is not valid UTF-8') };
    case 'WS_ERR_TOO_MANY_BUFFERED_PARTS':
      return { closeCode: 1008, wire: invalid('the message has too many fragments') };
    default:
      return { closeCode: 1002, wire: invalid('the frame breaks the WebSocket protocol') };
  }
}

/** An open socket's life under the gateway: its messages held, its refused frames logged, its place in shutdown. */
function onConnection(
  state: GatewayState,
  route: SocketProtocol,
  socket: WebSocket,
  raw: Duplex,
  key: GatewayKey | undefined,
): void {
  const { path, protocol } = route;
  holdIncomingMessages(state, socket, raw, { path, protocol, key });
  const served = route.serve(state, socket, key);
  const handle = { goAway: () => served.goAway(), terminate: () => socket.terminate() };
  state.sockets.add(handle);
  // A frame too large or not UTF-8: `ws` closes the socket (1009, 1007) after this event.
  socket.on('error', (error: Error & { code?: string }) => {
    state.logger.warn('gateway: websocket closed on a bad frame', { code: error.code ?? error.name });
    const { closeCode, wire } = frameRefusal(state, error.code);
    logRefusal(state, { protocol, path, requestId: requestIdFrom(undefined), key }, wire, closeCode);
  });
  socket.on('close', () => state.sockets.delete(handle));
}

/** The request's path without its query. */
function pathOf(request: IncomingMessage): string {
  const url = request.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The protocol a request asks for: an `Upgrade: websocket` on one of `routes`' paths; else undefined. */
export function upgradeRoute(
  request: IncomingMessage,
  routes: readonly SocketProtocol[],
): SocketProtocol | undefined {
  const upgrade = request.headers.upgrade;
  if (upgrade === undefined || !/(?:^|,)\s*websocket\s*(?:,|$)/i.test(upgrade)) return undefined;
  const path = pathOf(request);
  return routes.find((route) => route.path === path);
}

/** Handles HTTP upgrades to the WebSocket protocols' paths (keys checked as for every other route). */
export function createUpgradeHandler(
  state: GatewayState,
  routes: readonly SocketProtocol[],
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const server = new WebSocketServer({ noServer: true, maxPayload: state.bodyLimit });
  return (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://gateway');
    const caller: Caller = { requestId: '', key: undefined };
    const route = upgradeRoute(request, routes);
    // The keyed routes' own check: 503 while shutting down, 401 without a valid key, 403 for a
    // client that is not local when there are no keys.
    // Node's server lets a request without `Host` through (`requireHostHeader: false`, for a 400 with
    // a body on HTTP routes); an HTTP/1.1 upgrade without one is refused here (RFC 9112 §3.2).
    const refusal =
      route === undefined
        ? { status: 404 }
        : request.headers.host === undefined
          ? { status: 400 }
          : refusalOf(
              state,
              caller,
              (name) => nodeHeader(request, name),
              () => url.searchParams.get('key') ?? undefined,
            );
    if (route === undefined || refusal !== undefined) {
      const status = refusal?.status ?? 404;
      // A key's refusal (401, 403, 503 while shutting down) is logged and counted as every refused
      // HTTP request is (a key being guessed shows), and answered in the route's error shape
      // (`retry-after` where it has one) as its HTTP requests are; a request that is no WebSocket
      // upgrade is not logged, and answered bare.
      if (route !== undefined && refusal !== undefined && 'errorClass' in refusal) {
        const requestId = requestIdFrom(nodeHeader(request, 'x-request-id'));
        logRefusal(state, { protocol: route.protocol, path: route.path, requestId }, refusal);
        answerAndClose(socket, httpText(errorReply(route.protocol, refusal, requestId)));
        return;
      }
      answerAndClose(
        socket,
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`,
      );
      return;
    }
    const { key } = caller;
    // A key at its `max_websockets`: a 429 in OpenAI's error shape (as its HTTP routes answer),
    // logged and counted as a refused request, before the socket opens.
    const tooMany = key === undefined ? undefined : socketRefusal(state, key);
    if (tooMany !== undefined) {
      const requestId = requestIdFrom(nodeHeader(request, 'x-request-id'));
      logRefusal(state, { protocol: route.protocol, path: route.path, requestId, key }, tooMany);
      answerAndClose(socket, httpText(errorReply(route.protocol, tooMany, requestId)));
      return;
    }
    server.handleUpgrade(request, socket, head, (client) => {
      // Called before `handleUpgrade` returns (no `verifyClient`): no other upgrade comes between
      // the check above and this count.
      if (key !== undefined) holdSocket(state, key, socket);
      const open = state.metrics.openWebSockets;
      open.inc();
      socket.once('close', () => open.dec());
      onConnection(state, route, client, socket, key);
    });
  };
}

/** A whole error reply as HTTP/1.1 text, its connection closed after it (a refused upgrade). */
function httpText(reply: Reply): string {
  const body = typeof reply.body === 'string' ? reply.body : '';
  const headers = {
    ...reply.headers,
    connection: 'close',
    'content-length': String(Buffer.byteLength(body)),
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ''}\r\n${lines.join('')}\r\n${body}`;
}
