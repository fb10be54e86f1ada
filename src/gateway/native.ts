/**
 * Switchyard's own protocol: `POST /switchyard/v1/stream` takes a canonical request (model name,
 * transcript, tools, …) and streams the canonical events as SSE (`event: <type>`), the last being
 * `finish`; a failure before the first content event is an HTTP error (OpenAI's error shape), one
 * after it ends the stream with `event: error` carrying the classified error.
 */
import { createFrame } from '../codecs/frames.ts';
import type { StreamEncoder, WireFrame } from '../codecs/types.ts';
import type { RouteRequest } from '../routing/router.ts';
import { toWireError } from './errors.ts';
import { errorResponse } from './reply.ts';
import { readJson } from './inbound.ts';
import type { GatewayState } from './state.ts';
import { createBodyPump, createFramer, webBody } from './stream-body.ts';

/** Canonical events as they are: one frame per event, named by its type. */
const nativeEncoder: StreamEncoder = {
  event: (event) => [createFrame(event, event.type)],
  error: (error) => [createFrame({ type: 'error', error }, 'error')],
  started: true,
};

/** Serves one native stream; the client's disconnect cancels the upstream call. */
export async function serveNativeStream(
  state: GatewayState,
  request: Request,
  requestId: string,
): Promise<Response> {
  let body: unknown;
  try {
    body = await readJson(request, state.bodyLimit);
  } catch (error) {
    return errorResponse('openai-chat', toWireError(error), requestId);
  }
  const controller = new AbortController();
  request.signal.addEventListener('abort', () => controller.abort(new Error('client disconnected')), {
    once: true,
  });
  const turn = state.switchyard.stream(body as RouteRequest, { signal: controller.signal });
  const iterator = turn[Symbol.asyncIterator]();
  // Honest streaming, as the other protocols: nothing is sent before the first content event, so a
  // request the front door refuses (or a failure before content) is an HTTP error, not a 200.
  const first: WireFrame[] = [];
  let done = false;
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) {
        done = true;
        break;
      }
      first.push(...nativeEncoder.event(next.value));
      if (next.value.type !== 'message-start' && next.value.type !== 'finish') break;
    }
  } catch (error) {
    return errorResponse('openai-chat', toWireError(error), requestId);
  }
  const pump = createBodyPump({
    iterator,
    onEvent: (event) => nativeEncoder.event(event),
    framer: createFramer(false),
    streamEncoder: nativeEncoder,
    controller,
    finish: () => {},
    onCancel: () => {},
    onError: () => {},
    first,
    done,
  });
  return new Response(webBody(pump, ''), {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': requestId,
    },
  });
}
