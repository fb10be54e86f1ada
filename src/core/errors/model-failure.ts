/**
 * The error of a model failure: the call succeeded but the reply is unusable (a finish of `error`
 * without a failure — Gemini `MALFORMED_FUNCTION_CALL`, `MISSING_THOUGHT_SIGNATURE`, …). One
 * wording for the agent loop (which ends its run with it) and the gateway (which answers a 502).
 */
import type { CanonicalResponse } from '../request.ts';
import { ServerError } from './server-error.ts';

export function modelFailureError(response: CanonicalResponse): ServerError {
  const reason = response.rawFinishReason?.slice(0, 64) ?? 'error';
  const detail = response.metadata?.['gemini.finishMessage'];
  // The provider's own words, redacted when read (`gemini/reader.ts`), cut to 300 characters.
  const said = typeof detail === 'string' && detail !== '' ? `: ${detail.slice(0, 300)}` : '';
  return new ServerError({
    message: `${response.provider}: the model's reply was unusable (${reason})${said}`,
    providerCode: 'model_failure',
    provider: response.provider,
    requestId: response.requestId,
  });
}
