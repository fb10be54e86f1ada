/** Builders of realistic provider error responses, usable as scripts and by the emulator's own rules. */
import { codecs } from '../../codecs/index.ts';
import type { JsonScript } from './types.ts';

/**
 * An Anthropic error response: `{"type":"error","error":{"type","message"},"request_id"}` with a
 * `request-id` header, encoded by the production Anthropic codec. `type` is e.g.
 * `invalid_request_error`, `authentication_error`, `rate_limit_error`, `overloaded_error`.
 */
export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): JsonScript {
  const encoded = codecs['anthropic-messages'].encodeError({
    status,
    errorClass: 'other',
    code: type,
    message,
  });
  return { type: 'json', status, body: encoded.body, headers: { ...encoded.headers, ...headers } };
}

/** Optional fields of an OpenAI error body. */
export interface OpenaiErrorOptions {
  /** Default `invalid_request_error` below 500, `server_error` from 500. */
  type?: string;
  param?: string | null;
  code?: string | null;
  headers?: Record<string, string>;
}

/**
 * An OpenAI error response: `{"error":{"message","type","param","code"}}` with an `x-request-id`
 * header, encoded by the production OpenAI codec.
 */
export function openaiError(status: number, message: string, options: OpenaiErrorOptions = {}): JsonScript {
  const encoded = codecs['openai-chat'].encodeError({
    status,
    errorClass: status >= 500 ? 'server_error' : 'invalid_request',
    message,
    ...(options.type === undefined ? {} : { type: options.type }),
    ...(options.param === undefined || options.param === null ? {} : { param: options.param }),
    ...(options.code === undefined || options.code === null ? {} : { code: options.code }),
  });
  return {
    type: 'json',
    status,
    body: encoded.body,
    headers: { ...encoded.headers, ...(options.headers ?? {}) },
  };
}

/**
 * A Google API error response: `{"error":{"code","message","status","details"?}}`, encoded by the
 * production Gemini codec. `statusName` defaults from the HTTP status (400 `INVALID_ARGUMENT`, 429
 * `RESOURCE_EXHAUSTED`, …).
 */
export function googleError(
  status: number,
  message: string,
  statusName?: string,
  details?: unknown[],
): JsonScript {
  const encoded = codecs.gemini.encodeError({
    status,
    errorClass: 'other',
    message,
    ...(statusName === undefined ? {} : { code: statusName }),
  });
  const body = encoded.body as { error: Record<string, unknown> };
  if (details !== undefined) body.error.details = details;
  return {
    type: 'json',
    status,
    body,
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
