/** Responses error bodies and rules: OpenAI's shared ones plus the codes of this API and its in-band failures. */
import type { ErrorRule } from '../../core/errors/status-map.ts';
import { errorRules as openaiRules } from '../openai/errors.ts';

export { convertErrorBody, parseErrorBody } from '../openai/errors.ts';

/**
 * Responses-specific rules first (first match wins), then OpenAI's shared ones. A stale
 * `previous_response_id` and the item errors (`Item … not found`, `Duplicate item`) are invalid
 * requests whatever their status (OpenAI answers some with 404); a failed response's
 * `server_error` / `vector_store_timeout` are retryable server errors, `invalid_prompt` and
 * `invalid_image*` invalid requests.
 */
export const errorRules: readonly ErrorRule[] = [
  { code: 'previous_response_not_found', errorClass: 'invalid_request' },
  {
    message: /^Item (with id )?'[^']+' not found|^Duplicate item found|was provided without its required/i,
    errorClass: 'invalid_request',
  },
  { code: 'vector_store_timeout', errorClass: 'server_error' },
  { code: 'invalid_prompt', errorClass: 'invalid_request' },
  ...['invalid_image', 'invalid_image_format', 'invalid_base64_image', 'invalid_image_url'].map(
    (code): ErrorRule => ({ code, errorClass: 'invalid_request' }),
  ),
  ...openaiRules,
];
