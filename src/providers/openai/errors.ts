/** OpenAI error bodies (`{error:{message,type,code,param}}` and host variants) → classified errors, for Chat Completions and Responses. */
import type { ErrorBody, ErrorRule } from '../../core/errors/status-map.ts';
import { parseJson } from '../../core/json-text.ts';

/** An error object, in an error response, a 200 body or a stream chunk. */
export interface WireError {
  message?: unknown;
  type?: unknown;
  /** A string code (OpenAI) or the HTTP status (OpenRouter). */
  code?: unknown;
  param?: unknown;
  metadata?: unknown;
}

const maxMessageLength = 2_000;

/** Status-independent message patterns of a context overflow, across hosts. */
const contextOverflowMessage =
  /maximum context length|context length exceeded|context_length_exceeded|context window|reduce the length of the messages|prompt is too long|too large for model|exceeds the model's max/i;

/**
 * OpenAI's own rules, for Chat Completions and Responses (first match wins; each protocol's
 * `errors.ts` adds its own). In-band errors (a 200 body or a stream chunk) are
 * classified with status 0, so type-based rules are limited to that case.
 */
export const errorRules: readonly ErrorRule[] = [
  { code: 'context_length_exceeded', errorClass: 'context_overflow' },
  { code: 'string_above_max_length', errorClass: 'context_overflow' },
  { message: contextOverflowMessage, status: [0, 400, 413, 422], errorClass: 'context_overflow' },
  // Out of credit: a rate-limit class, but retrying cannot help.
  { code: 'insufficient_quota', errorClass: 'rate_limit', retryable: false },
  { code: 'rate_limit_exceeded', errorClass: 'rate_limit' },
  { code: 'invalid_api_key', errorClass: 'auth' },
  { code: 'server_error', status: 0, errorClass: 'server_error' },
  { code: 'invalid_request_error', status: 0, errorClass: 'invalid_request' },
];

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value.slice(0, maxMessageLength);
  if (value === undefined || value === null) return undefined;
  return JSON.stringify(value).slice(0, maxMessageLength);
}

const retryHint = /try again in (?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)(s|ms))?/i;

/** Seconds from a "Please try again in 1m23.5s" / "7.66s" / "250ms" hint, if the message has one. */
export function parseRetryHint(message: string): number | undefined {
  const match = retryHint.exec(message);
  if (match === null) return undefined;
  const [, hours, minutes, amount, unit] = match;
  if (hours === undefined && minutes === undefined && amount === undefined) return undefined;
  const seconds = amount === undefined ? 0 : Number(amount) / (unit?.toLowerCase() === 'ms' ? 1000 : 1);
  return Number(hours ?? 0) * 3600 + Number(minutes ?? 0) * 60 + seconds;
}

/**
 * Reads one error object or string: code (a string code, else the `type`), the string code alone
 * (`upstreamCode`), message, retry hint, status.
 */
function convertWireError(error: WireError | string): ErrorBody {
  if (typeof error === 'string') return { message: text(error) };
  const body: ErrorBody = {};
  const upstreamCode = typeof error.code === 'string' && error.code !== '' ? text(error.code) : undefined;
  const code = upstreamCode ?? text(error.type);
  if (code !== undefined) body.code = code;
  if (upstreamCode !== undefined) body.upstreamCode = upstreamCode;
  const message = text(error.message);
  if (message !== undefined) body.message = message;
  const retryAfterSeconds = message === undefined ? undefined : parseRetryHint(message);
  if (retryAfterSeconds !== undefined) body.retryAfterSeconds = retryAfterSeconds;
  // OpenRouter puts the HTTP status in a numeric `code`, also for in-band errors.
  if (typeof error.code === 'number' && error.code >= 400) body.status = error.code;
  return body;
}

/**
 * A parsed error value → the shared `ErrorBody`: an envelope (OpenAI `{error:{…}}`, Ollama
 * `{error:"…"}`), a bare error object (`{message, type, code}`, as in-band errors come), FastAPI
 * `{detail}`, or a string. Reads `code` (a string code, else the `type`), `message`, the retry delay
 * a "try again in …" message gives, and the HTTP `status` a numeric code stands for (OpenRouter).
 * Undefined for null, undefined and objects that carry none of these fields.
 */
export function convertErrorBody(value: unknown): ErrorBody | undefined {
  if (typeof value === 'string') return convertWireError(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const error = record.error;
  if (typeof error === 'string') return convertWireError(error);
  if (typeof error === 'object' && error !== null) return convertWireError(error as WireError);
  if ('message' in record || 'code' in record || 'type' in record) {
    return convertWireError(record as WireError);
  }
  if ('detail' in record) return { message: text(record.detail) };
  return undefined;
}

/**
 * Extracts code and message from an error response body: OpenAI `{error:{…}}`, Ollama
 * `{error:"…"}`, bare `{message, type, code}` objects, FastAPI `{detail}`, or plain text.
 */
export function parseErrorBody(body: string): ErrorBody {
  let parsed: unknown;
  try {
    parsed = parseJson(body);
  } catch {
    const message = text(body.trim());
    return message === undefined ? {} : { message };
  }
  if (typeof parsed !== 'object' || parsed === null) return { message: text(parsed) };
  const converted = convertErrorBody(parsed);
  if (converted === undefined) return { message: text(parsed) };
  delete converted.status;
  return converted;
}
