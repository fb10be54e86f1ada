/** Builders of realistic provider error responses, usable as scripts and by the emulator's own rules. */
import { createAnthropicRequestId, randomToken } from './ids.ts';
import type { JsonScript } from './types.ts';

/**
 * An Anthropic error response: `{"type":"error","error":{"type","message"},"request_id"}` with a
 * `request-id` header. `type` is e.g. `invalid_request_error`, `authentication_error`,
 * `rate_limit_error`, `overloaded_error`.
 */
export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): JsonScript {
  const requestId = createAnthropicRequestId();
  return {
    type: 'json',
    status,
    body: { type: 'error', error: { type, message }, request_id: requestId },
    headers: { 'request-id': requestId, ...headers },
  };
}

/** Optional fields of an OpenAI error body. */
export interface OpenaiErrorOptions {
  /** Default `invalid_request_error` below 500, `server_error` from 500. */
  type?: string;
  param?: string | null;
  code?: string | null;
  headers?: Record<string, string>;
}

/** An OpenAI error response: `{"error":{"message","type","param","code"}}` with an `x-request-id` header. */
export function openaiError(status: number, message: string, options: OpenaiErrorOptions = {}): JsonScript {
  const type = options.type ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
  return {
    type: 'json',
    status,
    body: { error: { message, type, param: options.param ?? null, code: options.code ?? null } },
    headers: { 'x-request-id': `req_${randomToken(32, '0123456789abcdef')}`, ...(options.headers ?? {}) },
  };
}

const googleStatusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/**
 * A Google API error response: `{"error":{"code","message","status","details"?}}`. `statusName`
 * defaults from the HTTP status (400 `INVALID_ARGUMENT`, 429 `RESOURCE_EXHAUSTED`, …).
 */
export function googleError(
  status: number,
  message: string,
  statusName?: string,
  details?: unknown[],
): JsonScript {
  const error: Record<string, unknown> = {
    code: status,
    message,
    status: statusName ?? googleStatusNames[status] ?? 'UNKNOWN',
  };
  if (details !== undefined) error.details = details;
  return {
    type: 'json',
    status,
    body: { error },
    headers: { 'content-type': 'application/json; charset=UTF-8' },
  };
}

/** The emulator's own 500 answer, e.g. `emulator: no script queued`. */
export function emulatorError(message: string): JsonScript {
  return {
    type: 'json',
    status: 500,
    body: { error: { type: 'emulator_error', message: `emulator: ${message}` } },
  };
}
