/** Each protocol's own error responses, one per error class a status and body decide (for conformance). */
import { anthropicError, googleError, openaiError } from './errors.ts';
import type { EmulatorApi, JsonScript } from './types.ts';

/** The error classes an HTTP error response (status + body) decides. */
export type ResponseErrorClass =
  'auth' | 'rate_limit' | 'server_error' | 'context_overflow' | 'invalid_request';

/** The classes in {@link protocolErrors}, in a stable order. */
export const responseErrorClasses: readonly ResponseErrorClass[] = [
  'auth',
  'rate_limit',
  'server_error',
  'context_overflow',
  'invalid_request',
];

/**
 * A realistic error response of `api` for `errorClass`, with the body shape, codes and messages
 * the real provider sends (Anthropic `{type:'error', error:{type, message}}`, OpenAI
 * `{error:{message, type, param, code}}`, Google `{error:{code, message, status}}`). `headers` are
 * added to the response (e.g. `{'retry-after': '0.2'}`). A fresh script each call (request ids differ).
 */
export function protocolError(
  api: EmulatorApi,
  errorClass: ResponseErrorClass,
  headers: Record<string, string> = {},
): JsonScript {
  const script = baseError(api, errorClass);
  return { ...script, headers: { ...script.headers, ...headers } };
}

/** Every class of {@link protocolError} for `api`, as `[class, script]` pairs. */
export function protocolErrors(api: EmulatorApi): Array<[ResponseErrorClass, JsonScript]> {
  return responseErrorClasses.map((errorClass) => [errorClass, protocolError(api, errorClass)]);
}

function baseError(api: EmulatorApi, errorClass: ResponseErrorClass): JsonScript {
  switch (api) {
    case 'anthropic-messages':
      return anthropicErrors[errorClass]();
    case 'gemini':
      return googleErrors[errorClass]();
    case 'openai-chat':
    case 'openai-responses':
      return openaiErrors[errorClass]();
  }
}

const anthropicErrors: Record<ResponseErrorClass, () => JsonScript> = {
  auth: () => anthropicError(401, 'authentication_error', 'invalid x-api-key'),
  rate_limit: () =>
    anthropicError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit'),
  server_error: () => anthropicError(500, 'api_error', 'Internal server error'),
  context_overflow: () =>
    anthropicError(400, 'invalid_request_error', 'prompt is too long: 215000 tokens > 200000 maximum'),
  invalid_request: () => anthropicError(400, 'invalid_request_error', 'max_tokens: field required'),
};

const googleErrors: Record<ResponseErrorClass, () => JsonScript> = {
  auth: () => googleError(403, 'Permission denied: API key not valid.', 'PERMISSION_DENIED'),
  rate_limit: () => googleError(429, 'Resource has been exhausted (e.g. check quota).', 'RESOURCE_EXHAUSTED'),
  server_error: () => googleError(503, 'The model is overloaded. Please try again later.', 'UNAVAILABLE'),
  context_overflow: () =>
    googleError(
      400,
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      'INVALID_ARGUMENT',
    ),
  invalid_request: () =>
    googleError(400, 'Invalid value at generation_config.temperature', 'INVALID_ARGUMENT'),
};

const openaiErrors: Record<ResponseErrorClass, () => JsonScript> = {
  auth: () =>
    openaiError(401, 'Incorrect API key provided.', {
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    }),
  rate_limit: () =>
    openaiError(429, 'Rate limit reached for requests', { type: 'requests', code: 'rate_limit_exceeded' }),
  server_error: () =>
    openaiError(500, 'The server had an error while processing your request.', { type: 'server_error' }),
  context_overflow: () =>
    openaiError(400, "This model's maximum context length is 128000 tokens.", {
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
    }),
  invalid_request: () =>
    openaiError(400, 'Unrecognized request argument supplied: foo', { type: 'invalid_request_error' }),
};
