/**
 * `/switchyard/v1/ws`: Switchyard's own protocol over a WebSocket. The client sends
 * `{ type: 'request', id, request }` (a canonical request with a model name) and gets
 * `{ type: 'event', id, event }` per stream event, then `{ type: 'done', id }` — or
 * `{ type: 'error', id, error }`; `{ type: 'cancel', id }` aborts that request's upstream call, and
 * closing the socket aborts every call it started.
 *
 * Each request is served as `POST /switchyard/v1/stream` is (`serveGeneration`, protocol
 * `switchyard`): the key presented at the upgrade, its models, limits and budget, the access log
 * and metrics apply to every request on the socket. A message the socket cannot take (too large,
 * not UTF-8) closes it with the WebSocket's own code, logged and counted as the HTTP body's 413 or
 * 400 is (with its `closeCode`); the process never sees the error. A message still arriving is
 * held as an HTTP body being read is (`websocket-hold.ts`: the bytes-in-flight bound, 1013 past
 * it; the body timeout, 1008). The key is checked at the upgrade, before a frame is read; a
 * refused upgrade is answered and closed (`answerAndClose`) — a 429 in the protocol's error shape
 * for a key holding its `max_websockets` open already.
 */
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { WireError } from '../codecs/types.ts';
import { type Caller, refusalOf, requestIdFrom } from './caller.ts';
import type { GenerationCall } from './generation-call.ts';
import { serveGeneration } from './generate.ts';
import { nodeHeader, tooManyValues } from './inbound.ts';
import { answerAndClose } from './node-listener.ts';
import { logRefusal } from './access-log.ts';
import { holdSocket, socketRefusal } from './key-limits.ts';
import type { GatewayKey } from './keys.ts';
import { errorReply, type Reply } from './reply.ts';
import type { GatewayState } from './state.ts';
import type { Framer } from './stream-body.ts';
import { shutDown } from './errors.ts';
import { holdIncomingMessages } from './websocket-hold.ts';
import { parseJson } from '../core/json-text.ts';

/** The path the socket is served at. */
export const websocketPath = '/switchyard/v1/ws';

/** Requests one socket may have in flight at once (more are refused with a 429 frame). */
export const maxCallsPerSocket = 64;

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
 * Sends an error frame (answering a message, so not paced like replies); a socket whose client has
 * stopped reading is ended at once — a close frame could not reach it — and its calls with it.
 */
/** A message's `type` as an error frame repeats it: a string cut to 40 characters, else null. */
const shownType = (type: unknown) => (typeof type === 'string' ? type.slice(0, 40) : null);

function refuse(
  socket: WebSocket,
  id: string | null,
  error: WireError,
  refused?: { type: unknown; id: string },
): void {
  // `id: null` when the id must not end a request still running under it: `refused` then names
  // the message this error answers (its type cut to 40 characters when it is a string).
  const about = refused === undefined ? undefined : { type: shownType(refused.type), id: refused.id };
  sendText(
    socket,
    JSON.stringify({ type: 'error', id, error, ...(about === undefined ? {} : { refused: about }) }),
  );
  if (socket.bufferedAmount > maxUnsentBytes) socket.terminate();
}

/** Read through a call (not narrowed away across an `await`: a cancel may come in between). */
const wasCancelled = (call: SocketCall) => call.cancelled === true;

/**
 * Resolves once the socket holds less than {@link sendBufferBytes} unsent (or is closed). A client
 * that takes nothing for `timeoutMs` (`gateway.send_timeout_seconds`) is cut off: its streams'
 * upstream calls (and their pooled connections) are not held for it.
 */
async function drained(socket: WebSocket, timeoutMs: number, call: SocketCall): Promise<void> {
  let deadline = performance.now() + timeoutMs;
  let unsent = socket.bufferedAmount;
  // A call the client cancels stops waiting: it has nothing more to send.
  while (
    socket.bufferedAmount > sendBufferBytes &&
    socket.readyState === socket.OPEN &&
    !wasCancelled(call)
  ) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Any progress restarts the wait: the timeout is between two writes the client took.
    if (socket.bufferedAmount < unsent) deadline = performance.now() + timeoutMs;
    unsent = socket.bufferedAmount;
    if (performance.now() >= deadline) socket.terminate();
  }
}

const invalid = (message: string): WireError => ({ status: 400, errorClass: 'invalid_request', message });

const cancelled: WireError = { status: 499, errorClass: 'cancelled', message: 'cancelled by the client' };

/** One request in flight on a socket: its abort, its reply's reader once it streams, and how it ended. */
interface SocketCall {
  controller: AbortController;
  reader?: ReadableStreamDefaultReader<Uint8Array>;
  /** The client cancelled it (and was told): nothing more is sent for it. */
  cancelled?: boolean;
  /** Its last line (`done` or an error) is out: a cancel now changes nothing. */
  finished?: boolean;
}

/**
 * Ends a call the client gave up, once: its upstream call is aborted (logged 499), a streaming
 * reply cancelled, and the client gets one final `cancelled` error and nothing after it.
 */
function cancelCall(socket: WebSocket, id: string, call: SocketCall): void {
  if (call.cancelled === true || call.finished === true) return;
  call.cancelled = true;
  call.controller.abort(new Error('cancelled by the client'));
  if (call.reader !== undefined) void call.reader.cancel();
  refuse(socket, id, cancelled);
}

/**
 * The socket's framing: one JSON message per line — an event, an in-band error, and `done` after
 * a clean end (never after an error).
 */
function socketFramer(id: string, call: SocketCall): Framer {
  const eventPrefix = `{"type":"event","id":${JSON.stringify(id)},"event":`;
  let failed = false;
  return {
    text(frames) {
      let text = '';
      for (const frame of frames) {
        if ('raw' in frame) continue;
        if (frame.event !== 'error') {
          text += `${eventPrefix}${frame.data}}\n`;
          continue;
        }
        failed = true;
        call.finished = true;
        const { error } = parseJson(frame.data) as { error: unknown };
        text += `${JSON.stringify({ type: 'error', id, error })}\n`;
      }
      return text;
    },
    end: () => {
      call.finished = true;
      return failed ? '' : `${JSON.stringify({ type: 'done', id })}\n`;
    },
  };
}

function sendLines(socket: WebSocket, text: string): void {
  for (const line of text.split('\n')) if (line !== '') sendText(socket, line);
}

/** Serves one request of the socket; the client's cancel or close aborts `signal`. */
async function serveRequest(
  state: GatewayState,
  socket: WebSocket,
  key: GatewayKey | undefined,
  id: string,
  { request: body, bytes }: { request: unknown; bytes: number },
  entry: SocketCall,
): Promise<void> {
  const call: GenerationCall = {
    protocol: 'switchyard',
    path: websocketPath,
    requestId: requestIdFrom(undefined),
    key,
    body,
    bodyBytes: bytes,
    signal: entry.controller.signal,
    framer: socketFramer(id, entry),
  };
  let reply: Reply | undefined;
  await serveGeneration(state, call, (ready) => (reply = ready));
  const ready = reply as Reply | undefined;
  if (ready === undefined) return;
  const { body: replyBody } = ready;
  // However this ends (done, an error, the client's cancel at any moment, the socket's close), a
  // stream not read to its end is cancelled here, once: that ends the request (its upstream call,
  // access log line, in-flight slot and held bytes). A cancel of an ended stream changes nothing.
  try {
    await sendReply(state, socket, id, ready, entry);
  } finally {
    if (replyBody instanceof ReadableStream) (entry.reader ?? replyBody).cancel().catch(() => {});
  }
}

/** Sends a prepared reply to the socket, paced by its send buffer, until it ends or the call is cancelled. */
async function sendReply(
  state: GatewayState,
  socket: WebSocket,
  id: string,
  ready: Reply,
  entry: SocketCall,
): Promise<void> {
  // Cancelled while it was prepared: the client was told; its reply (if a stream) is let go.
  if (entry.cancelled === true) return;
  if (ready.status !== 200) {
    entry.finished = true;
    refuse(
      socket,
      id,
      ready.wire ?? { status: ready.status, errorClass: 'other', message: 'request failed' },
    );
    return;
  }
  // Pull-based: each send waits while the socket holds a full buffer, and so the next upstream read.
  await drained(socket, state.sendTimeoutMs, entry);
  if (wasCancelled(entry)) return;
  if (typeof ready.body === 'string') {
    entry.finished = true;
    sendLines(socket, ready.body);
    return;
  }
  if (ready.body === undefined) return;
  const reader = ready.body.getReader();
  entry.reader = reader;
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    // Ended, or cancelled by the client (which was told): nothing more for this id.
    if (done || wasCancelled(entry)) return;
    sendLines(socket, decoder.decode(value));
    await drained(socket, state.sendTimeoutMs, entry);
    if (socket.readyState !== socket.OPEN) return;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

/** The message's fields, or why it is refused. */
function parseMessage(
  data: RawData,
  isBinary: boolean,
): { type: unknown; id: string; request: unknown; bytes: number } | WireError {
  let message: unknown;
  let text: string;
  try {
    // A binary frame is taken when it is UTF-8 JSON (`ws` clients send a Buffer as binary).
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
  const { type, id, request } = message as { type?: unknown; id?: unknown; request?: unknown };
  if (typeof id !== 'string' || id === '' || id.length > 256)
    return invalid('every message needs a string id of 1 to 256 characters');
  return { type, id, request, bytes: byteLength(data) };
}

/** A message's size in bytes, as it arrived. */
function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.byteLength, 0);
  return data.byteLength;
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

function onConnection(
  state: GatewayState,
  socket: WebSocket,
  raw: Duplex,
  key: GatewayKey | undefined,
): void {
  holdIncomingMessages(state, socket, raw, { path: websocketPath, key });
  const calls = new Map<string, SocketCall>();
  const handle = {
    // Shutdown, after the grace period (the upstream calls are cancelled already): each request
    // still running ends with one 503 error frame and nothing after it — logged as the 503 it is,
    // not as a client's cancel — then the socket closes as going away.
    goAway() {
      for (const [id, call] of calls) {
        if (call.cancelled === true || call.finished === true) continue;
        call.cancelled = true;
        refuse(socket, id, shutDown().wire);
      }
      socket.close(1001, 'the gateway is shutting down');
    },
    terminate: () => socket.terminate(),
  };
  state.sockets.add(handle);
  // A frame too large or not UTF-8: `ws` closes the socket (1009, 1007) after this event.
  socket.on('error', (error: Error & { code?: string }) => {
    state.logger.warn('gateway: websocket closed on a bad frame', { code: error.code ?? error.name });
    const { closeCode, wire } = frameRefusal(state, error.code);
    logRefusal(
      state,
      { protocol: 'switchyard', path: websocketPath, requestId: requestIdFrom(undefined), key },
      wire,
      closeCode,
    );
  });
  socket.on('message', (data, isBinary) => {
    const message = parseMessage(data, isBinary);
    if ('status' in message) return refuse(socket, null, message);
    const { type, id } = message;
    if (type === 'cancel') {
      const call = calls.get(id);
      if (call !== undefined) cancelCall(socket, id, call);
      return;
    }
    // An id whose request is still running: a refusal goes out without it (an error for the id would
    // end that request for the client while it goes on). One whose last line is out is free again.
    const live = calls.get(id);
    const running = live !== undefined && live.finished !== true && live.cancelled !== true;
    if (type !== 'request')
      return refuse(
        socket,
        running ? null : id,
        invalid('expected a request with a new id, or a cancel'),
        running ? { type, id } : undefined,
      );
    if (running)
      return refuse(
        socket,
        null,
        {
          ...invalid(`a request with id '${id}' is already in flight; use a new id`),
          code: 'duplicate_id',
        },
        { type, id },
      );
    if (!state.accepting)
      return refuse(socket, id, {
        status: 503,
        errorClass: 'server_error',
        message: 'the gateway is shutting down',
        retryable: true,
      });
    if (calls.size >= maxCallsPerSocket)
      return refuse(socket, id, {
        status: 429,
        errorClass: 'rate_limit',
        message: `at most ${maxCallsPerSocket} requests may be in flight on one socket`,
        retryable: true,
      });
    const entry: SocketCall = { controller: new AbortController() };
    calls.set(id, entry);
    serveRequest(state, socket, key, id, message, entry)
      .catch((error: unknown) => {
        state.logger.warn('gateway: unexpected error', {
          error: error instanceof Error ? error.name : 'unknown',
        });
        refuse(socket, id, { status: 500, errorClass: 'other', message: 'internal gateway error' });
      })
      .finally(() => {
        // The id may already serve a newer request (this one's last line was out): not that one's entry.
        if (calls.get(id) === entry) calls.delete(id);
      });
  });
  socket.on('close', () => {
    state.sockets.delete(handle);
    for (const call of calls.values()) {
      if (call.reader !== undefined) void call.reader.cancel();
      call.controller.abort(new Error('client disconnected'));
    }
  });
}

/** Handles HTTP upgrades to the WebSocket path (keys checked as for every other route). */
/** Whether a request asks for the gateway's WebSocket: an `Upgrade: websocket` on {@link websocketPath}. */
export function isWebSocketUpgrade(request: IncomingMessage): boolean {
  const upgrade = request.headers.upgrade;
  if (upgrade === undefined || !/(?:^|,)\s*websocket\s*(?:,|$)/i.test(upgrade)) return false;
  const url = request.url ?? '';
  const query = url.indexOf('?');
  return (query === -1 ? url : url.slice(0, query)) === websocketPath;
}

export function createUpgradeHandler(
  state: GatewayState,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const server = new WebSocketServer({ noServer: true, maxPayload: state.bodyLimit });
  return (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://gateway');
    const caller: Caller = { requestId: '', key: undefined };
    // The keyed routes' own check: 503 while shutting down, 401 without a valid key, 403 for a
    // client that is not local when there are no keys.
    // Node's server lets a request without `Host` through (`requireHostHeader: false`, for a 400 with
    // a body on HTTP routes); an HTTP/1.1 upgrade without one is refused here (RFC 9112 §3.2).
    const refusal = !isWebSocketUpgrade(request)
      ? { status: 404 }
      : request.headers.host === undefined
        ? { status: 400 }
        : refusalOf(
            state,
            caller,
            (name) => nodeHeader(request, name),
            () => url.searchParams.get('key') ?? undefined,
          );
    if (refusal !== undefined) {
      const status = `${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}`;
      // A key's refusal (401, 403, 503 while shutting down) is logged and counted as every refused
      // HTTP request is (a key being guessed shows); a request that is no WebSocket upgrade is not.
      if ('errorClass' in refusal) {
        const requestId = requestIdFrom(nodeHeader(request, 'x-request-id'));
        logRefusal(state, { protocol: 'switchyard', path: websocketPath, requestId }, refusal);
      }
      answerAndClose(socket, `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const { key } = caller;
    // A key at its `max_websockets`: a 429 in the protocol's shape (as `POST /switchyard/v1/stream`
    // answers), logged and counted as a refused request, before the socket opens.
    const tooMany = key === undefined ? undefined : socketRefusal(state, key);
    if (tooMany !== undefined) {
      const requestId = requestIdFrom(nodeHeader(request, 'x-request-id'));
      logRefusal(state, { protocol: 'switchyard', path: websocketPath, requestId, key }, tooMany);
      answerAndClose(socket, httpText(errorReply('switchyard', tooMany, requestId)));
      return;
    }
    server.handleUpgrade(request, socket, head, (client) => {
      // Called before `handleUpgrade` returns (no `verifyClient`): no other upgrade comes between
      // the check above and this count.
      if (key !== undefined) holdSocket(state, key, socket);
      const open = state.metrics.openWebSockets;
      open.inc();
      socket.once('close', () => open.dec());
      onConnection(state, client, socket, key);
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
