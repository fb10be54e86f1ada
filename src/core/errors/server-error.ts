/** ServerError: error class `server_error`. */
import { AdapterError, type AdapterErrorOptions } from './adapter-error.ts';

/** The provider failed (5xx other than rate limiting). */
export class ServerError extends AdapterError {
  override name = 'ServerError';

  constructor(options: Omit<AdapterErrorOptions, 'errorClass'>) {
    super({ ...options, errorClass: 'server_error' });
  }
}
