/** Replay helpers: the default request matcher and the rebuilding of recorded responses. */

import type { JsonValue } from '../../core/json.ts';
import { REDACTED } from '../../core/redaction.ts';
import type { CassetteRequest, CassetteResponse } from './types.ts';

/** Statuses whose responses cannot carry a body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The default matcher: same method, same (redacted) URL, and equal bodies, where JSON bodies
 * compare by value whatever their key order. A `[REDACTED]` in the recorded request stands for any
 * run of characters in the actual one ({@link matchesRedacted}): the recording process may have
 * known secrets (registered by an adapter, an MCP server …) that this process does not, so the same
 * text can be redacted in one and not in the other.
 */
export function matchRequest(recorded: CassetteRequest, actual: CassetteRequest): boolean {
  return (
    recorded.method.toUpperCase() === actual.method.toUpperCase() &&
    matchesRedacted(recorded.url, actual.url) &&
    matchesRedactedJson(recorded.body, actual.body)
  );
}

/**
 * Whether `actual` is `recorded` with each `[REDACTED]` of `recorded` standing for any run of
 * characters (possibly none). Linear in the lengths: the literal pieces between the wildcards are
 * found leftmost-first, which is enough when only literals sit between them.
 */
export function matchesRedacted(recorded: string, actual: string): boolean {
  if (!recorded.includes(REDACTED)) return recorded === actual;
  const pieces = recorded.split(REDACTED);
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (first.length + last.length > actual.length) return false;
  if (!actual.startsWith(first) || !actual.endsWith(last)) return false;
  let position = first.length;
  const end = actual.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = actual.indexOf(piece, position);
    if (found < 0 || found + piece.length > end) return false;
    position = found + piece.length;
  }
  return true;
}

/**
 * Whether two JSON values are equal, object key order aside, with every string (object keys
 * included) compared by {@link matchesRedacted}.
 */
export function matchesRedactedJson(recorded: JsonValue | undefined, actual: JsonValue | undefined): boolean {
  if (typeof recorded === 'string') return typeof actual === 'string' && matchesRedacted(recorded, actual);
  if (Array.isArray(recorded)) {
    return (
      Array.isArray(actual) &&
      recorded.length === actual.length &&
      recorded.every((item, index) => matchesRedactedJson(item, actual[index]))
    );
  }
  if (recorded === null || typeof recorded !== 'object') return recorded === actual;
  if (actual === null || actual === undefined || typeof actual !== 'object' || Array.isArray(actual))
    return false;
  const actualKeys = Object.keys(actual);
  if (Object.keys(recorded).length !== actualKeys.length) return false;
  const unused = new Set(actualKeys);
  for (const [key, value] of Object.entries(recorded)) {
    const candidates = unused.has(key) ? [key] : [...unused].filter((other) => matchesRedacted(key, other));
    const chosen = candidates.find((other) => matchesRedactedJson(value, actual[other]));
    if (chosen === undefined) return false;
    unused.delete(chosen);
  }
  return true;
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
