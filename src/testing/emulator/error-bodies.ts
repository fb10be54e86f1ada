/** One realistic error response per error class for each wire family (Anthropic, Google, OpenAI). */
import { anthropicError, googleError, openaiError } from './errors.ts';
import { bedrockError } from './rules/bedrock.ts';
import type { JsonScript } from './types.ts';

/** The error classes an HTTP error response (status + body) decides. */
export type ResponseErrorClass =
  'auth' | 'rate_limit' | 'server_error' | 'context_overflow' | 'invalid_request';

/** The classes `protocolErrors` returns, in a stable order. */
export const responseErrorClasses: readonly ResponseErrorClass[] = [
  'auth',
  'rate_limit',
  'server_error',
  'context_overflow',
  'invalid_request',
];

/** Anthropic Messages error responses by class. */
export const anthropicErrors: Record<ResponseErrorClass, () => JsonScript> = {
  auth: () => anthropicError(401, 'authentication_error', 'invalid x-api-key'),
  rate_limit: () =>
    anthropicError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit'),
  server_error: () => anthropicError(500, 'api_error', 'Internal server error'),
  context_overflow: () =>
    anthropicError(400, 'invalid_request_error', 'prompt is too long: 215000 tokens > 200000 maximum'),
  invalid_request: () => anthropicError(400, 'invalid_request_error', 'max_tokens: field required'),
};

/** Google (Gemini) error responses by class. */
export const googleErrors: Record<ResponseErrorClass, () => JsonScript> = {
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

/** OpenAI (Chat Completions and Responses) error responses by class. */
export const openaiErrors: Record<ResponseErrorClass, () => JsonScript> = {
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

/** Bedrock error responses by class (`{"message"}`, the exception in `x-amzn-errortype`). */
export const bedrockErrors: Record<ResponseErrorClass, () => JsonScript> = {
  auth: () =>
    bedrockError(
      403,
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
    ),
  rate_limit: () =>
    bedrockError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'),
  server_error: () =>
    bedrockError(503, 'ServiceUnavailableException', 'Bedrock is unable to process your request.'),
  context_overflow: () => bedrockError(400, 'ValidationException', 'Input is too long for requested model.'),
  invalid_request: () =>
    bedrockError(
      400,
      'ValidationException',
      'The provided request is not valid: temperature must be between 0 and 1.',
    ),
};

/** Vertex AI (Anthropic publisher) error responses: Google's envelope for auth and quota, Anthropic's for the model. */
export const vertexAnthropicErrors: Record<ResponseErrorClass, () => JsonScript> = {
  auth: () =>
    googleError(
      401,
      'Request had invalid authentication credentials. Expected OAuth 2 access token.',
      'UNAUTHENTICATED',
    ),
  rate_limit: () =>
    googleError(
      429,
      'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model.',
      'RESOURCE_EXHAUSTED',
    ),
  server_error: () => anthropicError(529, 'overloaded_error', 'Overloaded'),
  context_overflow: anthropicErrors.context_overflow,
  invalid_request: anthropicErrors.invalid_request,
};
