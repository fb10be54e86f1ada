/** Google error bodies (`{error: {code, status, message, details}}`, also as an array) → classified errors. */
import type { ErrorBody, ErrorRule } from '../../core/errors/status-map.ts';
import { type GoogleErrorBody, readGoogleError } from './api.ts';
import { isJsonObject } from '../../core/json.ts';
import { parseJson } from '../../core/json-text.ts';

const retryInfoType = 'type.googleapis.com/google.rpc.RetryInfo';
const errorInfoType = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * Body rules, first match wins, before the status table (docs/contract.md §6.2). `code` is the `ErrorInfo.reason`
 * when Google gives one (`API_KEY_INVALID`), else the canonical status (`RESOURCE_EXHAUSTED`).
 */
export const errorRules: readonly ErrorRule[] = [
  // An invalid key comes back as 400 INVALID_ARGUMENT; it is still an auth failure.
  { code: 'API_KEY_INVALID', errorClass: 'auth', retryable: false },
  { code: 'API_KEY_SERVICE_BLOCKED', errorClass: 'auth', retryable: false },
  { code: 'UNAUTHENTICATED', errorClass: 'auth', retryable: false },
  { code: 'PERMISSION_DENIED', errorClass: 'auth', retryable: false },
  { code: 'RESOURCE_EXHAUSTED', errorClass: 'rate_limit' },
  { code: 'RATE_LIMIT_EXCEEDED', errorClass: 'rate_limit' },
  {
    status: [400, 413],
    message:
      /input token count|exceeds the maximum number of tokens|too many tokens|context (window|length)/i,
    errorClass: 'context_overflow',
    retryable: false,
  },
  { code: 'UNAVAILABLE', errorClass: 'server_error' },
  { code: 'INTERNAL', errorClass: 'server_error' },
  { code: 'DEADLINE_EXCEEDED', errorClass: 'server_error' },
];

/** Extracts code, message and the `RetryInfo.retryDelay` hint from an error body (any text). */
export function parseErrorBody(text: string): ErrorBody {
  let parsed: unknown;
  try {
    parsed = parseJson(text);
  } catch {
    const trimmed = text.trim();
    return trimmed === '' ? {} : { message: trimmed.slice(0, 500) };
  }
  const body = convertErrorBody(parsed);
  if (body === undefined) return isJsonObject(parsed) ? {} : { message: text.trim().slice(0, 500) };
  delete body.status;
  return body;
}

/**
 * A parsed body or stream chunk → the shared `ErrorBody` (with the HTTP `status` an in-band error
 * names), or undefined when it is not an error envelope (`{error}` or `[{error}]`).
 */
export function convertErrorBody(value: unknown): ErrorBody | undefined {
  const error = readGoogleError(value);
  if (error === undefined) return undefined;
  const body: ErrorBody = {};
  const code = errorReason(error) ?? error.status;
  if (code !== undefined) body.code = code;
  if (error.message !== undefined) body.message = error.message;
  const retryAfterSeconds = retryDelaySeconds(error);
  if (retryAfterSeconds !== undefined) body.retryAfterSeconds = retryAfterSeconds;
  if (error.code !== undefined) body.status = error.code;
  return body;
}

function errorReason(error: GoogleErrorBody): string | undefined {
  for (const detail of error.details ?? []) {
    if (isJsonObject(detail) && detail['@type'] === errorInfoType && typeof detail.reason === 'string') {
      return detail.reason;
    }
  }
  return undefined;
}

/** `RetryInfo.retryDelay` is a protobuf Duration in JSON form: seconds with an `s` suffix (`"34.4s"`). */
function retryDelaySeconds(error: GoogleErrorBody): number | undefined {
  for (const detail of error.details ?? []) {
    if (!isJsonObject(detail) || detail['@type'] !== retryInfoType) continue;
    const delay = detail.retryDelay;
    const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay.trim()) : null;
    if (match !== null) return Number(match[1]);
  }
  return undefined;
}
