/** Bedrock error bodies and exception frames, and the rules that classify them. */
import type { ErrorBody, ErrorRule } from '../../core/errors/status-map.ts';
import { parseErrorText } from '../common/errors.ts';
import { isJsonObject } from '../../core/json.ts';

const maxMessageLength = 500;

/**
 * Reads `{"message": "..."}` (Bedrock puts the exception name in the `x-amzn-errortype` header,
 * which the runtime does not pass here; some bodies carry `__type` or `Message`). A body that is not
 * JSON becomes a trimmed message; an empty body yields nothing.
 */
export function parseErrorBody(text: string): ErrorBody {
  return parseErrorText(text, convertErrorBody);
}

/** The code and message of a parsed error object; undefined when the value holds neither. */
export function convertErrorBody(value: unknown, code?: string): ErrorBody | undefined {
  if (!isJsonObject(value)) return undefined;
  const message = value.message ?? value.Message;
  const named = code ?? (typeof value.__type === 'string' ? value.__type : undefined);
  const type = named === undefined || named === '' ? undefined : normalizeExceptionName(named);
  if (typeof message !== 'string' && type === undefined) return undefined;
  const body: ErrorBody = {};
  if (type !== undefined) body.code = type;
  if (typeof message === 'string') body.message = message.slice(0, maxMessageLength);
  return body;
}

const contextOverflowMessage =
  /too many input tokens|input is too long|prompt is too long|context window|maximum context length|exceeds? the maximum/i;

/**
 * Bedrock's exceptions (API reference, Converse "Errors"), as HTTP errors and as exception frames
 * inside a 200 stream (camelCase there): throttling → rate_limit; model stream error, internal
 * server, service unavailable, model not ready, model timeout → server_error; validation (a prompt
 * over the window → context_overflow), resource not found → invalid_request; access denied,
 * expired or unrecognized credentials → auth.
 */
export const errorRules: readonly ErrorRule[] = [
  { code: 'throttlingException', errorClass: 'rate_limit' },
  { code: 'serviceQuotaExceededException', errorClass: 'rate_limit', retryable: false },
  { code: 'modelStreamErrorException', errorClass: 'server_error' },
  { code: 'internalServerException', errorClass: 'server_error' },
  { code: 'serviceUnavailableException', errorClass: 'server_error' },
  { code: 'modelNotReadyException', errorClass: 'server_error' },
  { code: 'modelTimeoutException', errorClass: 'server_error' },
  { code: 'modelErrorException', errorClass: 'server_error' },
  { code: 'validationException', message: contextOverflowMessage, errorClass: 'context_overflow' },
  { code: 'validationException', errorClass: 'invalid_request' },
  { code: 'resourceNotFoundException', errorClass: 'invalid_request' },
  { code: 'unknownOperationException', errorClass: 'invalid_request' },
  { code: 'accessDeniedException', errorClass: 'auth' },
  { code: 'expiredTokenException', errorClass: 'auth' },
  { code: 'unrecognizedClientException', errorClass: 'auth' },
  { status: 400, message: contextOverflowMessage, errorClass: 'context_overflow' },
];

/** `ThrottlingException`, `com.amazon…#ThrottlingException` → `throttlingException` (the stream's spelling). */
export function normalizeExceptionName(name: string): string {
  const last = name.split('#').at(-1)?.split(':')[0]?.trim() ?? '';
  return last.charAt(0).toLowerCase() + last.slice(1);
}
