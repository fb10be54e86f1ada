/** Anthropic error bodies and the rules that classify them (first match wins, before the status table). */
import type { ErrorBody, ErrorRule } from '../../core/errors/status-map.ts';
import { parseErrorText } from '../common/errors.ts';
import type { WireErrorBody } from './api.ts';

/**
 * Reads `{type:'error', error:{type, message}}`. A body that is not JSON (an HTML page from a proxy,
 * plain text) becomes a trimmed message without a code; an empty body yields nothing.
 */
export function parseErrorBody(text: string): ErrorBody {
  return parseErrorText(text, convertErrorBody);
}

/**
 * The code and message of a parsed error object (a response body or an SSE `error` event);
 * undefined when the value is not an error envelope.
 */
export function convertErrorBody(value: unknown): ErrorBody | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const error = (value as WireErrorBody).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const body: ErrorBody = {};
  if (typeof error.type === 'string') body.code = error.type;
  if (typeof error.message === 'string') body.message = error.message;
  return body;
}

/**
 * Messages of a 400 `invalid_request_error` that mean the prompt does not fit the context window.
 * Bedrock relays Claude's own ("The model returned the following errors: …") and reuses this.
 */
export const contextOverflowMessage =
  /prompt is too long|exceeds? the maximum (?:number of tokens|context|allowed tokens|input tokens|token)|context window|context limit|context length|too many (input )?tokens/i;

/**
 * Anthropic's error types (docs: "Errors"): 400 invalid_request_error, 401 authentication_error,
 * 402 billing_error, 403 permission_error, 404 not_found_error, 413 request_too_large,
 * 429 rate_limit_error, 500 api_error, 504 timeout_error, 529 overloaded_error. Rules match on the
 * type, so in-stream `error` events (no HTTP status) classify the same way as HTTP errors. 529 and
 * `overloaded_error` are every adapter's (`sharedErrorRules`: an overload, `server_error`).
 */
export const errorRules: readonly ErrorRule[] = [
  { code: 'rate_limit_error', errorClass: 'rate_limit' },
  { code: 'invalid_request_error', message: contextOverflowMessage, errorClass: 'context_overflow' },
  { code: 'request_too_large', errorClass: 'context_overflow' },
  { status: 413, errorClass: 'context_overflow' },
  { code: 'authentication_error', errorClass: 'auth' },
  { code: 'permission_error', errorClass: 'auth' },
  // An exhausted credit balance is a quota problem: rate_limit, but retrying cannot help.
  { code: 'billing_error', errorClass: 'rate_limit', retryable: false },
  { code: 'api_error', errorClass: 'server_error' },
  { code: 'timeout_error', errorClass: 'server_error' },
  { code: 'not_found_error', errorClass: 'invalid_request' },
  { code: 'invalid_request_error', errorClass: 'invalid_request' },
];
