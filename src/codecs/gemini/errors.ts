/** Google API error bodies: `{"error":{"code","message","status"}}`. */
import type { EncodedError, WireError } from '../types.ts';
import { retryAfterHeaders } from '../common.ts';

const statusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'INVALID_ARGUMENT',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Google's canonical status names (google.rpc.Code): the only values `status` takes. */
const canonicalNames = new Set([
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
]);

/**
 * The HTTP status a Google client is given: an upstream's 529 (Anthropic's overloaded) is Google's
 * 503 `UNAVAILABLE`, which is how Gemini says it is overloaded; any other status is kept.
 */
const googleStatus = (status: number) => (status === 529 ? 503 : status);

/**
 * The body of a Google error (also the in-band error object of a stream). A `code` that is a
 * canonical status name (the emulator's scripts) is the `status`; any other (`model_failure`,
 * `state_unavailable`) goes in an ErrorInfo detail's `reason`, as Google's own errors carry theirs,
 * and `status` is the HTTP status's name.
 */
export function errorBody(error: WireError): { error: Record<string, unknown> } {
  const named = error.code !== undefined && canonicalNames.has(error.code);
  const status = googleStatus(error.status);
  const body: Record<string, unknown> = {
    code: status,
    message: error.message,
    status: named ? error.code : (statusNames[status] ?? 'UNKNOWN'),
  };
  if (error.code !== undefined && !named)
    body.details = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: error.code }];
  return { error: body };
}

/** A Google error response (with `retry-after` and `retry-after-ms` when known). */
export function encodeError(error: WireError): EncodedError {
  const headers = retryAfterHeaders(error.retryAfterSeconds);
  return { status: googleStatus(error.status), body: errorBody(error), headers };
}
