/** RateLimitError: error class `rate_limit`. */
import { AdapterError, type AdapterErrorOptions } from './adapter-error.ts';

/** The provider signalled a rate limit or overload; `retryAfterSeconds` carries its hint. */
export class RateLimitError extends AdapterError {
  override name = 'RateLimitError';

  constructor(options: Omit<AdapterErrorOptions, 'errorClass'>) {
    super({ ...options, errorClass: 'rate_limit' });
  }
}
