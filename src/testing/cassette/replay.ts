/** Replay helpers: the default request matcher and the rebuilding of recorded responses. */

import { stableStringify } from './stable-json.ts';
import type { CassetteRequest, CassetteResponse } from './types.ts';

/** Statuses whose responses cannot carry a body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The default matcher: same method, same (redacted) URL, and deep-equal bodies, where JSON bodies
 * compare by value whatever their key order.
 */
export function matchRequest(recorded: CassetteRequest, actual: CassetteRequest): boolean {
  return (
    recorded.method.toUpperCase() === actual.method.toUpperCase() &&
    recorded.url === actual.url &&
    stableStringify(recorded.body) === stableStringify(actual.body)
  );
}

/**
 * Rebuilds a `Response` from a recorded one. Streamed responses come back as a stream that yields
 * each recorded chunk as its own read, so parsers see the same boundaries; aborting `signal` errors
 * the stream.
 */
export function createReplayResponse(
  recorded: CassetteResponse,
  url: string,
  signal?: AbortSignal | null,
): Response {
  const body = NULL_BODY_STATUSES.has(recorded.status) ? null : createBody(recorded, signal);
  const response = new Response(body, {
    status: recorded.status,
    statusText: recorded.statusText ?? '',
    headers: recorded.headers ?? {},
  });
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

function createBody(recorded: CassetteResponse, signal?: AbortSignal | null): BodyInit | null {
  if (recorded.chunks !== undefined) return createChunkStream(recorded.chunks, signal);
  if (recorded.body === undefined || recorded.body === null) return recorded.body === null ? 'null' : null;
  if (recorded.encoding === 'base64' && typeof recorded.body === 'string') {
    return new Uint8Array(Buffer.from(recorded.body, 'base64'));
  }
  return typeof recorded.body === 'string' ? recorded.body : JSON.stringify(recorded.body);
}

function createChunkStream(
  chunks: readonly string[],
  signal?: AbortSignal | null,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let index = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (signal?.aborted) {
          controller.error(signal.reason);
        } else if (index < chunks.length) {
          controller.enqueue(encoder.encode(chunks[index++]));
        } else {
          controller.close();
        }
      },
    },
    { highWaterMark: 0 },
  );
}
