/**
 * `/switchyard/v1/ws`: Switchyard's own protocol over a WebSocket. The client sends
 * `{ type: 'request', id, request }` (a canonical request with a model name) and gets
 * `{ type: 'event', id, event }` per stream event, then `{ type: 'done', id }` — or
 * `{ type: 'error', id, error }`; `{ type: 'cancel', id }` aborts that request's upstream call, and
 * closing the socket aborts every call it started.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { RouteRequest } from '../routing/router.ts';
import { toWireError } from './errors.ts';
import { nodeHeader } from './inbound.ts';
import { findKey, presentedKey } from './keys.ts';
import type { GatewayState } from './state.ts';

/** The path the socket is served at. */
export const websocketPath = '/switchyard/v1/ws';

function send(socket: WebSocket, message: unknown): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}

async function serveRequest(
  state: GatewayState,
  socket: WebSocket,
  id: string,
  request: RouteRequest,
  controller: AbortController,
): Promise<void> {
  try {
    for await (const event of state.switchyard.stream(request, { signal: controller.signal })) {
      send(socket, { type: 'event', id, event });
      // Pull-based: wait while the socket's send buffer is full.
      while (socket.bufferedAmount > 1 << 20 && socket.readyState === socket.OPEN)
        await new Promise((resolve) => setTimeout(resolve, 5));
    }
    send(socket, { type: 'done', id });
  } catch (error) {
    send(socket, { type: 'error', id, error: toWireError(error) });
  }
}

function onConnection(state: GatewayState, socket: WebSocket): void {
  const calls = new Map<string, AbortController>();
  socket.on('message', (data) => {
    let message: { type?: unknown; id?: unknown; request?: unknown };
    try {
      message = JSON.parse(String(data)) as typeof message;
    } catch {
      send(socket, {
        type: 'error',
        id: null,
        error: { status: 400, errorClass: 'invalid_request', message: 'the message is not valid JSON' },
      });
      return;
    }
    const id = typeof message.id === 'string' ? message.id : undefined;
    if (id === undefined) {
      send(socket, {
        type: 'error',
        id: null,
        error: { status: 400, errorClass: 'invalid_request', message: 'every message needs a string id' },
      });
      return;
    }
    if (message.type === 'cancel') {
      calls.get(id)?.abort(new Error('cancelled by the client'));
      return;
    }
    if (message.type !== 'request' || calls.has(id)) {
      send(socket, {
        type: 'error',
        id,
        error: {
          status: 400,
          errorClass: 'invalid_request',
          message: 'expected a request with a new id, or a cancel',
        },
      });
      return;
    }
    const controller = new AbortController();
    calls.set(id, controller);
    state.calls.add(controller);
    void serveRequest(state, socket, id, message.request as RouteRequest, controller).finally(() => {
      calls.delete(id);
      state.calls.delete(controller);
    });
  });
  socket.on('close', () => {
    for (const controller of calls.values()) controller.abort(new Error('client disconnected'));
  });
}

/** Handles HTTP upgrades to the WebSocket path (keys checked as for every other route). */
export function createUpgradeHandler(
  state: GatewayState,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const server = new WebSocketServer({ noServer: true, maxPayload: state.bodyLimit });
  server.on('connection', (socket) => onConnection(state, socket));
  return (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://gateway');
    const header = (name: string) => nodeHeader(request, name);
    const query = () => url.searchParams.get('key') ?? undefined;
    const allowed =
      state.accepting &&
      (state.keys.length === 0 || findKey(state.keys, presentedKey(header, query)) !== undefined);
    if (url.pathname !== websocketPath || !allowed) {
      socket.end(
        `HTTP/1.1 ${allowed ? '404 Not Found' : '401 Unauthorized'}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`,
      );
      return;
    }
    server.handleUpgrade(request, socket, head, (client) => server.emit('connection', client, request));
  };
}
