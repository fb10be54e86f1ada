/**
 * `/v1/responses` over a WebSocket: OpenAI's Responses WebSocket mode (the official SDK's
 * `ResponsesWS`). The client sends `{type: 'response.create', ...}` — the same top-level fields as
 * `POST /v1/responses`, streamed whatever its `stream` says — and gets the events the HTTP stream
 * carries, one JSON text message each (`response.created` … `response.completed`; a failure after
 * content is `response.failed`, as on HTTP). A request refused before its first content, and a
 * message the gateway does not take, is answered with the documented `error` event: `{type:
 * 'error', status, error: {type, code, message, param}}`.
 *
 * Each `response.create` is served as `POST /v1/responses` is (`serveGeneration`, protocol
 * `openai-responses`): the key presented at the upgrade, its models, limits and budget, the access
 * log and metrics apply to each; a `previous_response_id` continues from the connection's most
 * recent response when it was not stored (`store: false`: kept on the connection,
 * `ResponsesConnection`) or from the gateway's stored responses. One response runs at a time on a connection: another
 * `response.create` meanwhile, a `stream_id` (the API's multiplexing), `response.steer` and any other
 * event are refused with an `error` event naming what is not served. Closing the socket cancels the
 * response's upstream call. The upgrade, the messages' bounds and deadlines, the pacing of replies
 * and shutdown are every WebSocket protocol's (`websocket-common.ts`).
 */
import type { RawData, WebSocket } from 'ws';
import { inboundCodecs } from '../codecs/index.ts';
import type { WireError } from '../codecs/types.ts';
import { parseJson } from '../core/json-text.ts';
import { requestIdFrom, shuttingDown } from './caller.ts';
import { shutDown } from './errors.ts';
import { serveGeneration } from './generate.ts';
import type { GenerationCall, ResponsesConnection } from './generation-call.ts';
import type { GatewayKey } from './keys.ts';
import type { Reply } from './reply.ts';
import type { GatewayState } from './state.ts';
import type { Framer } from './stream-body.ts';
import {
  invalid,
  readMessage,
  byteLength,
  sendAnswer,
  sendReply,
  type SocketProtocol,
  type SocketReply,
} from './websocket-common.ts';

/** The path the Responses WebSocket is served at (the path `POST /v1/responses` is served at). */
const responsesSocketPath = '/v1/responses';

/** A `stream_id` the SDK would send (`ResponsesWebSocketSession.lane`): echoed on its refusal, so its lane sees it. */
const streamIdShape = /^[A-Za-z0-9_.-]{1,256}$/u;

/** The documented `error` server event of a refused request or message (`stream_id` echoed when given). */
function errorEvent(wire: WireError, streamId?: string): string {
  const { status, body } = inboundCodecs['openai-responses'].encodeError(wire);
  const { error } = body as { error: unknown };
  return JSON.stringify({
    type: 'error',
    status,
    error,
    ...(streamId === undefined ? {} : { stream_id: streamId }),
  });
}

/** The `error` event of a refused reply: its classified error, else its body's (an OpenAI error). */
function replyError(reply: Reply): string {
  if (reply.wire !== undefined) return errorEvent(reply.wire);
  const { error } = parseJson(typeof reply.body === 'string' ? reply.body : '{}') as { error?: unknown };
  return JSON.stringify({ type: 'error', status: reply.status, error: error ?? null });
}

/** The one response running on a connection: its abort, and its reply as it is sent. */
interface Running extends SocketReply {
  controller: AbortController;
}

/** The events that end a response: after one, nothing more is sent for it. */
const lastEvents = new Set(['response.completed', 'response.failed', 'response.incomplete']);

/**
 * Each frame of the Responses stream as one message: its JSON (which names its `type`), without
 * SSE's `event:` line. The response's last event marks it finished (shutdown then adds no error).
 */
function responsesFramer(running: Running): Framer {
  return {
    text(frames) {
      let text = '';
      for (const frame of frames) {
        if ('raw' in frame) continue;
        text += `${frame.data}\n`;
        if (frame.event !== undefined && lastEvents.has(frame.event)) running.finished = true;
      }
      return text;
    },
    end: () => '',
  };
}

/** A client event's `type` as an error repeats it: cut to 40 characters. */
const shownType = (type: string) => (type.length > 40 ? `${type.slice(0, 40)}…` : type);

/** Why a message is not served as a `response.create`, or undefined when it is one the gateway takes. */
function refusalOf(message: Record<string, unknown>, running: boolean): WireError | undefined {
  const { type } = message;
  if (typeof type !== 'string')
    return { ...invalid("every client event needs a string type: 'response.create'"), param: 'type' };
  if (type !== 'response.create')
    return {
      ...invalid(
        `the gateway does not support the client event '${shownType(type)}'; it serves 'response.create' only`,
      ),
      code: 'unsupported_event_type',
      param: 'type',
    };
  if ('stream_id' in message)
    return {
      ...invalid(
        'stream_id (WebSocket multiplexing) is not supported by the gateway: one response at a time per connection, without stream_id',
      ),
      code: 'unsupported_parameter',
      param: 'stream_id',
    };
  return running ? inProgress() : undefined;
}

/** The refusal of a `response.create` while another runs (or waits) on the connection. */
const inProgress = (): WireError => ({
  ...invalid(
    'a response is already in progress on this connection; send the next response.create once it has ended (the gateway runs one response at a time per connection)',
  ),
  code: 'response_in_progress',
});

/**
 * The bytes of the messages that wait, on one connection, for the `response.create` before them to
 * be decided: past them a message is refused in its turn as in progress, its bytes not kept (the
 * first message waiting is always kept, whatever its size: one body, as on HTTP).
 */
const maxWaitingBytes = 64 * 1024;

/** Messages refused in their turn that may wait at once on one connection; more close it (1008). */
const maxWaitingRefusals = 1024;

/** Serves one `response.create` as `POST /v1/responses` with `stream: true`; the client's close aborts it. */
async function serveCreate(
  state: GatewayState,
  socket: WebSocket,
  key: GatewayKey | undefined,
  { message, bytes }: { message: Record<string, unknown>; bytes: number },
  running: Running,
  connection: ResponsesConnection,
  decided: () => void,
): Promise<void> {
  const { type: _type, ...fields } = message;
  const call: GenerationCall = {
    protocol: 'openai-responses',
    path: responsesSocketPath,
    requestId: requestIdFrom(undefined),
    key,
    body: { ...fields, stream: true },
    bodyBytes: bytes,
    signal: running.controller.signal,
    framer: responsesFramer(running),
    connection,
  };
  let reply: Reply | undefined;
  await serveGeneration(state, call, (ready) => (reply = ready));
  const ready = reply as Reply | undefined;
  if (ready === undefined) return;
  // Given up while it was prepared (the socket closed, or shutdown): its reply is let go.
  if (running.cancelled === true) {
    if (ready.body instanceof ReadableStream) void ready.body.cancel();
    return;
  }
  if (ready.status !== 200) {
    running.finished = true;
    sendAnswer(socket, replyError(ready));
    return;
  }
  // Streaming: the connection's next message is decided now (refused while this one runs).
  decided();
  await sendReply(state, socket, ready.body, running);
}

function serve(state: GatewayState, socket: WebSocket, key: GatewayKey | undefined): { goAway(): void } {
  const connection: ResponsesConnection = {};
  let running: Running | undefined;
  // Messages are decided in the order they came: a message waits until the `response.create`
  // before it is refused or streaming, so a create refused after its checks (a `background`, a
  // model the key may not use) leaves the connection free for the next one, and the client gets
  // the answers in its messages' order (the error events carry no id to match them by).
  // A flood cannot hold more than one message plus {@link maxWaitingBytes} of bytes, nor more than
  // {@link maxWaitingRefusals} refusals waiting their turn.
  let previous: Promise<void> = Promise.resolve();
  let waitingBytes = 0;
  let waitingRefusals = 0;
  socket.on('message', (data, isBinary) => {
    const waited = previous;
    let decided!: () => void;
    previous = new Promise((resolve) => (decided = resolve));
    const bytes = byteLength(data);
    if (waitingBytes === 0 || waitingBytes + bytes <= maxWaitingBytes) {
      waitingBytes += bytes;
      void waited.then(() => {
        waitingBytes -= bytes;
        onMessage(data, isBinary, decided);
      });
    } else refuseInTurn(waited, decided);
  });
  // Apart from the listener above: a closure made there would share its context, `data` included.
  function refuseInTurn(waited: Promise<void>, decided: () => void): void {
    if (waitingRefusals >= maxWaitingRefusals) {
      socket.close(1008, 'too many messages while a response.create is decided');
      return decided();
    }
    waitingRefusals++;
    void waited.then(() => {
      waitingRefusals--;
      if (connection.closed !== true) sendAnswer(socket, errorEvent(inProgress()));
      decided();
    });
  }
  function onMessage(data: RawData, isBinary: boolean, decided: () => void): void {
    if (connection.closed === true) return decided();
    const read = readMessage(data, isBinary);
    if ('status' in read) {
      sendAnswer(socket, errorEvent(read));
      return decided();
    }
    const refused = refusalOf(read.message, running !== undefined);
    if (refused !== undefined) {
      const streamId = read.message.stream_id;
      const echoed = typeof streamId === 'string' && streamIdShape.test(streamId) ? streamId : undefined;
      sendAnswer(socket, errorEvent(refused, echoed));
      return decided();
    }
    if (!state.accepting) {
      sendAnswer(socket, errorEvent(shuttingDown));
      return decided();
    }
    const entry: Running = { controller: new AbortController() };
    running = entry;
    serveCreate(state, socket, key, read, entry, connection, decided)
      .catch((error: unknown) => {
        state.logger.warn('gateway: unexpected error', {
          error: error instanceof Error ? error.name : 'unknown',
        });
        sendAnswer(
          socket,
          errorEvent({ status: 500, errorClass: 'other', message: 'internal gateway error' }),
        );
      })
      .finally(() => {
        if (running === entry) running = undefined;
        decided();
      });
  }
  socket.on('close', () => {
    connection.closed = true;
    connection.last = undefined;
    connection.held?.release();
    if (running === undefined) return;
    running.cancelled = true;
    if (running.reader !== undefined) void running.reader.cancel();
    running.controller.abort(new Error('client disconnected'));
  });
  return {
    // Shutdown, after the grace period (the upstream call is cancelled already): a response still
    // running ends with one 503 `error` event and nothing after it, then the socket closes (1001).
    goAway() {
      if (running !== undefined && running.cancelled !== true && running.finished !== true) {
        running.cancelled = true;
        sendAnswer(socket, errorEvent(shutDown().wire));
      }
      socket.close(1001, 'the gateway is shutting down');
    },
  };
}

/** OpenAI's Responses WebSocket mode (`websocket-common.ts` serves its upgrade and socket). */
export const responsesSocket: SocketProtocol = {
  path: responsesSocketPath,
  protocol: 'openai-responses',
  serve,
};
