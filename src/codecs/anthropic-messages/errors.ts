/** Anthropic error bodies: `{"type":"error","error":{"type","message"},"request_id"}` by class and status. */
import type { ErrorClass } from '../../core/errors/error-class.ts';
import { createAnthropicRequestId } from '../ids.ts';
import { retryAfterHeaders } from '../common.ts';
import type { EncodedError, WireError } from '../types.ts';

const types: Record<ErrorClass, string> = {
  auth: 'authentication_error',
  rate_limit: 'rate_limit_error',
  server_error: 'api_error',
  network: 'api_error',
  context_overflow: 'invalid_request_error',
  invalid_request: 'invalid_request_error',
  cancelled: 'api_error',
  other: 'api_error',
};

/** The error types Anthropic's API sends (a code of ours, such as `model_failure`, is not one). */
const anthropicTypes = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
  'billing_error',
  'timeout_error',
]);

/**
 * The Anthropic error type of an error (`overloaded_error` for 529, `request_too_large` for 413,
 * `timeout_error` for 408 and 504 — Anthropic's own 504 is one).
 */
export function errorType(error: WireError): string {
  if (error.code !== undefined && anthropicTypes.has(error.code)) return error.code;
  if (error.status === 529) return 'overloaded_error';
  if (error.status === 413) return 'request_too_large';
  if (error.status === 408 || error.status === 504) return 'timeout_error';
  if (error.status === 404) return 'not_found_error';
  if (error.status === 403) return 'permission_error';
  return types[error.errorClass];
}

/**
 * An Anthropic error response, with a `request-id` header (and `retry-after`, `retry-after-ms` when
 * known): its body's `request_id` is that id — `requestId` when given, else a new one.
 */
export function encodeError(error: WireError, requestId = createAnthropicRequestId()): EncodedError {
  const headers: Record<string, string> = { 'request-id': requestId };
  Object.assign(headers, retryAfterHeaders(error.retryAfterSeconds));
  return {
    status: error.status,
    body: {
      type: 'error',
      error: {
        type: errorType(error),
        message: error.message,
        ...(error.details === undefined ? {} : { details: error.details }),
      },
      request_id: requestId,
    },
    headers,
  };
}
