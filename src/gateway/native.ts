/**
 * Switchyard's own protocol: `POST /switchyard/v1/stream` takes a canonical request (model name,
 * transcript, tools, …) and streams the canonical events as SSE (`event: <type>`), the last being
 * `finish`; a failure ends with `event: error` carrying the classified error.
 */
import { createFrame, serializeFrame } from '../codecs/frames.ts';
import type { RouteRequest } from '../routing/router.ts';
import { toWireError } from './errors.ts';
import { errorResponse, readJson } from './generate.ts';
import type { GatewayState } from './state.ts';

const encoder = new TextEncoder();

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
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(output) {
        try {
          const next = await iterator.next();
          if (next.done === true) {
            output.close();
            return;
          }
          output.enqueue(encoder.encode(serializeFrame(createFrame(next.value, next.value.type))));
        } catch (error) {
          const wire = toWireError(error);
          output.enqueue(
            encoder.encode(serializeFrame(createFrame({ type: 'error', error: wire }, 'error'))),
          );
          output.close();
        }
      },
      async cancel() {
        controller.abort(new Error('client disconnected'));
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': requestId,
    },
  });
}
