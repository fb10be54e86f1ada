/** Google API error bodies: `{"error":{"code","message","status"}}`. */
import type { EncodedError, WireError } from '../types.ts';

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

/** The body of a Google error (also the in-band error object of a stream). */
export function errorBody(error: WireError): { error: Record<string, unknown> } {
  return {
    error: {
      code: error.status,
      message: error.message,
      status: error.code ?? statusNames[error.status] ?? 'UNKNOWN',
    },
  };
}

/** A Google error response (with `retry-after` when known). */
export function encodeError(error: WireError): EncodedError {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(Math.ceil(error.retryAfterSeconds));
  return { status: error.status, body: errorBody(error), headers };
}
