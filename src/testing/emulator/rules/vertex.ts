/**
 * Vertex AI request rules for Anthropic models: an OAuth bearer token and `anthropic_version:
 * vertex-2023-10-16`, no `model`, no `url` image or document source.
 */
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
  return checkUrlSources(body.messages) ?? checkAnthropicBody(request);
}

/**
 * Claude on Vertex fetches no URL: an image or document with a `url` source, tool results
 * included, is a 400 ("URL sources are not supported", as reported in langchain-google#1088 and
 * litellm#18430; the emulator's wording).
 */
function checkUrlSources(messages: unknown): JsonScript | undefined {
  const pending: unknown[] = [messages];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) for (const child of value as unknown[]) pending.push(child);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const block = value as { type?: unknown; source?: { type?: unknown }; content?: unknown };
    if ((block.type === 'image' || block.type === 'document') && block.source?.type === 'url')
      return anthropicError(400, 'invalid_request_error', 'URL sources are not supported.');
    pending.push(block.content);
  }
  return undefined;
}
