/** Bedrock error bodies and exception frames, and the rules that classify them. */
import type { ErrorBody, ErrorRule } from '../../core/errors/status-map.ts';
import type { ResponseHeaders } from '../common/definition.ts';
import { contextOverflowMessage as claudeContextOverflow } from '../anthropic/errors.ts';
import { parseErrorText } from '../common/errors.ts';
import { isJsonObject } from '../../core/json.ts';
import { redactSecrets } from '../../core/redaction.ts';

const maxMessageLength = 500;

/**
 * Reads `{"message": "..."}` with the exception's name where AWS's REST-JSON protocol puts it
 * (aws-sdk-js-v3 `loadRestJsonErrorCode`): the `x-amzn-errortype` header
 * (`ValidationException:http://internal.amazon.com/coral/…`), else the body's `code`, else its
 * `__type`. Without the name a 424 ModelErrorException or a 400 ServiceQuotaExceededException
 * would be classified by its status alone. A body that is not JSON becomes a trimmed message (with
 * the header's name); an empty body yields the name alone, or nothing.
 */
export function parseErrorBody(text: string, headers?: ResponseHeaders): ErrorBody {
  const header = headers?.get('x-amzn-errortype') ?? undefined;
  const body = parseErrorText(text, (value) => convertErrorBody(value, header));
  const code = header === undefined ? '' : normalizeExceptionName(header);
  return body.code !== undefined || code === '' ? body : { code, ...body };
}

/**
 * The code and message of a parsed error object; undefined when the value holds neither. `code`
 * (the header's name, or an exception frame's `:exception-type`) wins over the body's own.
 */
export function convertErrorBody(value: unknown, code?: string): ErrorBody | undefined {
  if (!isJsonObject(value)) return undefined;
  const message = value.message ?? value.Message;
  const named = code ?? stringField(value.code) ?? stringField(value.__type);
  const type = named === undefined ? '' : normalizeExceptionName(named);
  if (typeof message !== 'string' && type === '') return undefined;
  const body: ErrorBody = {};
  if (type !== '') body.code = type;
  if (typeof message === 'string') body.message = message.slice(0, maxMessageLength);
  return body;
}

function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Bedrock's own wording of a prompt over the window ("Input is too long for requested model", "…
 * exceeds the maximum …"), and Claude's, which Bedrock relays after "The model returned the
 * following errors:" ("input length and `max_tokens` exceed context limit"): one pattern with the
 * Anthropic adapter's, so the two cannot drift.
 */
const contextOverflowMessage = new RegExp(
  `input is too long|exceeds? the maximum|${claudeContextOverflow.source}`,
  claudeContextOverflow.flags,
);

/**
 * Bedrock's exceptions (API reference, Converse "Errors"), as HTTP errors and as exception frames
 * inside a 200 stream (camelCase there): throttling and a 429 model not ready (the model is being
 * loaded: "wait and try again", which the AWS SDKs retry; as Anthropic's overloaded_error) →
 * rate_limit; service quota exceeded → rate_limit, not retried; model stream error, internal
 * server, 503 service unavailable, 408 model timeout, 424 model error → server_error (retried);
 * validation (a prompt over the window → context_overflow), resource not found → invalid_request;
 * a 403 access denied (no access to the model, an IAM permission), expired or unrecognized
 * credentials → auth (the closed class of a 401/403, as Anthropic's permission_error and Gemini's
 * PERMISSION_DENIED; the gateway tells a refused access from a bad key by the code).
 */
export const errorRules: readonly ErrorRule[] = [
  { code: 'throttlingException', errorClass: 'rate_limit' },
  { code: 'modelNotReadyException', errorClass: 'rate_limit' },
  { code: 'serviceQuotaExceededException', errorClass: 'rate_limit', retryable: false },
  { code: 'modelStreamErrorException', errorClass: 'server_error' },
  { code: 'internalServerException', errorClass: 'server_error' },
  { code: 'serviceUnavailableException', errorClass: 'server_error' },
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

/** The exceptions of a 403 that mean the credentials themselves were refused, not the access. */
const credentialExceptions = new Set([
  'expiredTokenException',
  'expiredToken',
  'unrecognizedClientException',
  'invalidSignatureException',
  'incompleteSignatureException',
  'invalidClientTokenId',
  'missingAuthenticationTokenException',
  'signatureDoesNotMatch',
]);

/**
 * Whether a 401/403 refused the credentials (an expired session token, an unknown key, a bad
 * signature): worth one retry with refreshed ones. A 403 `AccessDeniedException` ("you don't have
 * access to the model") is the account's permission, the same after any refresh. An answer
 * without its exception's name is taken as the credentials' (as before the name was read).
 */
export function credentialsRefused(status: number, headers: ResponseHeaders): boolean {
  const header = headers.get('x-amzn-errortype');
  if (status === 401 || header === null) return true;
  return credentialExceptions.has(normalizeExceptionName(header));
}

/**
 * `ThrottlingException`, `ThrottlingException:http://internal.amazon.com/…`,
 * `com.amazon…#ThrottlingException` → `throttlingException` (the stream's spelling). Trimmed as the
 * SDK's `sanitizeErrorCode` does: before any `,`, before any `:`, after any `#`. Redacted first: the
 * name is the upstream's text (a proxy may echo a credential in it), and a secret whose first letter
 * had been lowercased would no longer match its registered value.
 */
export function normalizeExceptionName(name: string): string {
  const shape = redactSecrets(name).split(/[,:]/)[0] ?? '';
  const last = shape.split('#').at(-1)?.trim() ?? '';
  return last.charAt(0).toLowerCase() + last.slice(1);
}
