/** OpenAI error bodies (Chat Completions and Responses): `{"error":{"message","type","param","code"}}`. */
import type { ErrorClass } from '../../core/errors/error-class.ts';
import { randomToken } from '../ids.ts';
import { retryAfterHeaders } from '../common.ts';
import type { EncodedError, WireError } from '../types.ts';

const types: Record<ErrorClass, { type: string; code: string | null }> = {
  auth: { type: 'invalid_request_error', code: 'invalid_api_key' },
  rate_limit: { type: 'requests', code: 'rate_limit_exceeded' },
  server_error: { type: 'server_error', code: null },
  network: { type: 'server_error', code: null },
  context_overflow: { type: 'invalid_request_error', code: 'context_length_exceeded' },
  invalid_request: { type: 'invalid_request_error', code: null },
  cancelled: { type: 'server_error', code: null },
  other: { type: 'server_error', code: null },
};

/** The body of an OpenAI error (also the in-band error object of a Chat stream). */
export function errorBody(error: WireError): { error: Record<string, unknown> } {
  const { type, code } = types[error.errorClass];
  return {
    error: {
      message: error.message,
      type: error.type ?? type,
      param: error.param ?? null,
      code: error.code ?? code,
    },
  };
}

/** An OpenAI error response with an `x-request-id` header (and `retry-after`, `retry-after-ms` when known). */
export function encodeError(error: WireError): EncodedError {
  const headers: Record<string, string> = { 'x-request-id': `req_${randomToken(32, '0123456789abcdef')}` };
  Object.assign(headers, retryAfterHeaders(error.retryAfterSeconds));
  return { status: error.status, body: errorBody(error), headers };
}
