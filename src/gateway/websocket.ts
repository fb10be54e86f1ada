/**
 * `/switchyard/v1/ws`: Switchyard's own protocol over a WebSocket. The client sends
 * `{ type: 'request', id, request }` (a canonical request with a model name) and gets
 * `{ type: 'event', id, event }` per stream event, then `{ type: 'done', id }` — or
 * `{ type: 'error', id, error }`; `{ type: 'cancel', id }` aborts that request's upstream call, and
 * closing the socket aborts every call it started.
 *
 * Each request is served as `POST /switchyard/v1/stream` is (`serveGeneration`, protocol
 * `switchyard`): the key presented at the upgrade, its models, limits and budget, the access log
 * and metrics apply to every request on the socket. The upgrade, the messages' bounds and
 * deadlines, the pacing of replies and shutdown are every WebSocket protocol's
 * (`websocket-common.ts`).
 */
import type { WebSocket } from 'ws';
import type { WireError } from '../codecs/types.ts';
import { requestIdFrom, shuttingDown } from './caller.ts';
import type { GenerationCall } from './generation-call.ts';
import { serveGeneration } from './generate.ts';
import type { GatewayKey } from './keys.ts';
import type { Reply } from './reply.ts';
import type { GatewayState } from './state.ts';
import type { Framer } from './stream-body.ts';
import { shutDown } from './errors.ts';
import { parseJson } from '../core/json-text.ts';
import {
  invalid,
  readMessage,
  sendAnswer,
  sendReply,
  type SocketProtocol,
  type SocketReply,
} from './websocket-common.ts';

/** The path the socket is served at. */
export const websocketPath = '/switchyard/v1/ws';

/** Requests one socket may have in flight at once (more are refused with a 429 frame). */
export const maxCallsPerSocket = 64;

/** A message's `type` as an error frame repeats it: a string cut to 40 characters, else null. */
const shownType = (type: unknown) => (typeof type === 'string' ? type.slice(0, 40) : null);

/**
 * Sends an error frame (answering a message, so not paced like replies; `sendAnswer`). `id: null`
 * when the id must not end a request still running under it: `refused` then names the message
 * this error answers (its type cut to 40 characters when it is a string).
 */
function refuse(
  socket: WebSocket,
  id: string | null,
  error: WireError,
  refused?: { type: unknown; id: string },
): void {
  const about = refused === undefined ? undefined : { type: shownType(refused.type), id: refused.id };
  sendAnswer(
    socket,
    JSON.stringify({ type: 'error', id, error, ...(about === undefined ? {} : { refused: about }) }),
  );
}

const cancelled: WireError = { status: 499, errorClass: 'cancelled', message: 'cancelled by the client' };

/** One request in flight on a socket: its abort, its reply as it is sent, and how it ended. */
interface SocketCall extends SocketReply {
  controller: AbortController;
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
  // Given up while it was prepared (the client was told), or refused: a stream is let go unread.
  if (entry.cancelled === true || ready.status !== 200) {
    if (ready.body instanceof ReadableStream) ready.body.cancel().catch(() => {});
    if (entry.cancelled === true) return;
    entry.finished = true;
    refuse(
      socket,
      id,
      ready.wire ?? { status: ready.status, errorClass: 'other', message: 'request failed' },
    );
    return;
  }
  await sendReply(state, socket, ready.body, entry);
}

/** The message's fields, or why it is refused. */
function parseMessage(
  ...args: Parameters<typeof readMessage>
): { type: unknown; id: string; request: unknown; bytes: number } | WireError {
  const read = readMessage(...args);
  if ('status' in read) return read;
  const { type, id, request } = read.message;
  if (typeof id !== 'string' || id === '' || id.length > 256)
    return invalid('every message needs a string id of 1 to 256 characters');
  return { type, id, request, bytes: read.bytes };
}

function serve(state: GatewayState, socket: WebSocket, key: GatewayKey | undefined): { goAway(): void } {
  const calls = new Map<string, SocketCall>();
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
    if (!state.accepting) return refuse(socket, id, shuttingDown);
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
    for (const call of calls.values()) {
      if (call.reader !== undefined) void call.reader.cancel();
      call.controller.abort(new Error('client disconnected'));
    }
  });
  return {
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
  };
}

/** Switchyard's own WebSocket protocol (`websocket-common.ts` serves its upgrade and socket). */
export const switchyardSocket: SocketProtocol = { path: websocketPath, protocol: 'switchyard', serve };
