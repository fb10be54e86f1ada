/** Vertex AI request rules for Anthropic models: an OAuth bearer token and `anthropic_version: vertex-2023-10-16`, no `model`. */
import { anthropicError, googleError } from '../errors.ts';
import type { JsonScript, RecordedRequest } from '../types.ts';
import { checkAnthropicBody } from './anthropic.ts';

/** Vertex takes an OAuth access token (`authorization: Bearer …`) or, in express mode, an API key. */
export function checkGoogleCredentials(request: RecordedRequest): JsonScript | undefined {
  if (/^Bearer \S+$/.test(request.headers.authorization ?? '') || request.headers['x-goog-api-key'])
    return undefined;
  return googleError(
    401,
    'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
    'UNAUTHENTICATED',
  );
}

/** Checks a `:rawPredict` / `:streamRawPredict` request. */
export function checkVertexAnthropicRequest(request: RecordedRequest): JsonScript | undefined {
  const denied = checkGoogleCredentials(request);
  if (denied !== undefined) return denied;
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
    string,
    unknown
  >;
  if (body.anthropic_version !== 'vertex-2023-10-16')
    return anthropicError(
      400,
      'invalid_request_error',
      'anthropic_version: Input should be vertex-2023-10-16',
    );
  if ('model' in body)
    return anthropicError(400, 'invalid_request_error', 'model: Extra inputs are not permitted');
  return checkAnthropicBody(request);
}
