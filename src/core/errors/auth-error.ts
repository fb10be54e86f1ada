/** AuthError: error class `auth`. */
import { AdapterError, type AdapterErrorOptions } from './adapter-error.ts';

/** The API key is missing, invalid or lacks permission (401, 403). */
export class AuthError extends AdapterError {
  override name = 'AuthError';

  constructor(options: Omit<AdapterErrorOptions, 'errorClass'>) {
    super({ ...options, errorClass: 'auth' });
  }
}
