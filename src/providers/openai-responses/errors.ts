/** Responses error bodies and rules: OpenAI's shared ones plus the codes of this API and its in-band failures. */
import type { ErrorRule } from '../../core/errors/status-map.ts';
import { errorRules as openaiRules } from '../openai/errors.ts';

export { convertErrorBody, parseErrorBody } from '../openai/errors.ts';

/**
 * Responses-specific rules first (first match wins), then OpenAI's shared ones. A stale
 * `previous_response_id` and the item errors (`Item … not found`, `Duplicate item`) are invalid
 * requests whatever their status (OpenAI answers some with 404); a failed response's
 * `server_error` / `vector_store_timeout` are retryable server errors (a body still queued or
 * running, `response_not_finished`, is not), `invalid_prompt` and
 * `invalid_image*` invalid requests.
 */
export const errorRules: readonly ErrorRule[] = [
  { code: 'previous_response_not_found', errorClass: 'invalid_request' },
  {
    message: /^Item (with id )?'[^']+' not found|^Duplicate item found|was provided without its required/i,
    errorClass: 'invalid_request',
  },
  { code: 'vector_store_timeout', errorClass: 'server_error' },
  // A body still queued or running (the reader's own code): sent again it would start (and bill)
  // another background job, never finish this one.
  { code: 'response_not_finished', errorClass: 'server_error', retryable: false },
  { code: 'invalid_prompt', errorClass: 'invalid_request' },
  ...['invalid_image', 'invalid_image_format', 'invalid_base64_image', 'invalid_image_url'].map(
    (code): ErrorRule => ({ code, errorClass: 'invalid_request' }),
  ),
  ...openaiRules,
];
