/**
 * Switchyard's own protocol: `POST /switchyard/v1/stream` takes a canonical request (model name,
 * transcript, tools, …) and streams the canonical events as SSE (`event: <type>`), the last being
 * `finish`; a failure ends with `event: error` carrying the classified error.
 */
import { createFrame } from '../codecs/frames.ts';
import type { StreamEncoder } from '../codecs/types.ts';
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
  const pump = createBodyPump({
    iterator: turn[Symbol.asyncIterator](),
    onEvent: (event) => nativeEncoder.event(event),
    framer: createFramer(false),
    streamEncoder: nativeEncoder,
    controller,
    finish: () => {},
    onCancel: () => {},
    onError: () => {},
    first: [],
    done: false,
  });
  return new Response(webBody(pump, ''), {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': requestId,
    },
  });
}
