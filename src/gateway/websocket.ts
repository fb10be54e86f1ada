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
 * not UTF-8) closes it with the WebSocket's own code; the process never sees the error.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { WireError } from '../codecs/types.ts';
import { localRefusal, requestIdFrom } from './caller.ts';
import { type GenerationCall, serveGeneration } from './generate.ts';
import { nodeHeader } from './inbound.ts';
import { findKey, type GatewayKey, presentedKey } from './keys.ts';
import type { Reply } from './reply.ts';
import type { GatewayState } from './state.ts';
import type { Framer } from './stream-body.ts';

/** The path the socket is served at. */
export const websocketPath = '/switchyard/v1/ws';

/** Requests one socket may have in flight at once (more are refused with a 429 frame). */
export const maxCallsPerSocket = 64;

/** Bytes the socket may hold unsent before the next read of the upstream waits. */
const sendBufferBytes = 1 << 20;

function send(socket: WebSocket, message: unknown): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}

function refuse(socket: WebSocket, id: string | null, error: WireError): void {
  send(socket, { type: 'error', id, error });
}

const invalid = (message: string): WireError => ({ status: 400, errorClass: 'invalid_request', message });

/**
 * The socket's framing: one JSON message per line — an event, an in-band error, and `done` after
 * a clean end (never after an error).
 */
function socketFramer(id: string): Framer {
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
        const { error } = JSON.parse(frame.data) as { error: unknown };
        text += `${JSON.stringify({ type: 'error', id, error })}\n`;
      }
      return text;
    },
    end: () => (failed ? '' : `${JSON.stringify({ type: 'done', id })}\n`),
  };
}

function sendLines(socket: WebSocket, text: string): void {
  for (const line of text.split('\n'))
    if (line !== '' && socket.readyState === socket.OPEN) socket.send(line);
}

/** Serves one request of the socket; the client's cancel or close aborts `signal`. */
async function serveRequest(
  state: GatewayState,
  socket: WebSocket,
  key: GatewayKey | undefined,
  id: string,
  body: unknown,
  signal: AbortSignal,
): Promise<void> {
  const call: GenerationCall = {
    protocol: 'switchyard',
    path: websocketPath,
    requestId: requestIdFrom(undefined),
    key,
    body,
    signal,
    framer: socketFramer(id),
  };
  let reply: Reply | undefined;
  await serveGeneration(state, call, (ready) => (reply = ready));
  if (reply === undefined) return;
  if (reply.status !== 200) {
    refuse(
      socket,
      id,
      reply.wire ?? { status: reply.status, errorClass: 'other', message: 'request failed' },
    );
    return;
  }
  if (typeof reply.body === 'string') {
    sendLines(socket, reply.body);
    return;
  }
  if (reply.body === undefined) return;
  // Pull-based: the next read of the upstream waits while the socket's send buffer is full.
  const reader = reply.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    sendLines(socket, decoder.decode(value));
    while (socket.bufferedAmount > sendBufferBytes && socket.readyState === socket.OPEN)
      await new Promise((resolve) => setTimeout(resolve, 5));
    if (socket.readyState !== socket.OPEN) {
      await reader.cancel();
      return;
    }
  }
}

/** The message's fields, or why it is refused. */
function parseMessage(data: RawData): { type: unknown; id: string; request: unknown } | WireError {
  let message: unknown;
  try {
    message = JSON.parse(String(data));
  } catch {
    return invalid('the message is not valid JSON');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return invalid('every message is a JSON object');
  const { type, id, request } = message as { type?: unknown; id?: unknown; request?: unknown };
  if (typeof id !== 'string' || id === '' || id.length > 256)
    return invalid('every message needs a string id of 1 to 256 characters');
  return { type, id, request };
}

function onConnection(state: GatewayState, socket: WebSocket, key: GatewayKey | undefined): void {
  const calls = new Map<string, AbortController>();
  state.sockets.add(socket);
  // A frame too large or not UTF-8: `ws` closes the socket (1009, 1007) after this event.
  socket.on('error', (error: Error & { code?: string }) =>
    state.logger.warn('gateway: websocket closed on a bad frame', { code: error.code ?? error.name }),
  );
  socket.on('message', (data, isBinary) => {
    if (isBinary) return refuse(socket, null, invalid('messages are JSON text, not binary'));
    const message = parseMessage(data);
    if ('status' in message) return refuse(socket, null, message);
    const { type, id } = message;
    if (type === 'cancel') {
      calls.get(id)?.abort(new Error('cancelled by the client'));
      return;
    }
    if (type !== 'request' || calls.has(id))
      return refuse(socket, id, invalid('expected a request with a new id, or a cancel'));
    if (!state.accepting)
      return refuse(socket, id, {
        status: 503,
        errorClass: 'server_error',
        message: 'the gateway is shutting down',
      });
    if (calls.size >= maxCallsPerSocket)
      return refuse(socket, id, {
        status: 429,
        errorClass: 'rate_limit',
        message: `at most ${maxCallsPerSocket} requests may be in flight on one socket`,
      });
    const controller = new AbortController();
    calls.set(id, controller);
    serveRequest(state, socket, key, id, message.request, controller.signal)
      .catch((error: unknown) => {
        state.logger.warn('gateway: unexpected error', {
          error: error instanceof Error ? error.name : 'unknown',
        });
        refuse(socket, id, { status: 500, errorClass: 'other', message: 'internal gateway error' });
      })
      .finally(() => calls.delete(id));
  });
  socket.on('close', () => {
    state.sockets.delete(socket);
    for (const controller of calls.values()) controller.abort(new Error('client disconnected'));
  });
}

/** Handles HTTP upgrades to the WebSocket path (keys checked as for every other route). */
export function createUpgradeHandler(
  state: GatewayState,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const server = new WebSocketServer({ noServer: true, maxPayload: state.bodyLimit });
  return (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://gateway');
    const header = (name: string) => nodeHeader(request, name);
    const query = () => url.searchParams.get('key') ?? undefined;
    const key = state.keys.length === 0 ? undefined : findKey(state.keys, presentedKey(header, query));
    // Without keys, only this machine's clients (a web page of any other origin is refused).
    const local = state.keys.length === 0 && localRefusal(state, header) === undefined;
    const allowed = state.accepting && (local || key !== undefined);
    if (url.pathname !== websocketPath || !allowed) {
      const refused = state.keys.length === 0 ? '403 Forbidden' : '401 Unauthorized';
      const status = !state.accepting ? '503 Service Unavailable' : allowed ? '404 Not Found' : refused;
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    server.handleUpgrade(request, socket, head, (client) => onConnection(state, client, key));
  };
}
