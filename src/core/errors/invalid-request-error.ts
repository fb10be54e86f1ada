/** InvalidRequestError: error class `invalid_request`. */
import { AdapterError, type AdapterErrorOptions } from './adapter-error.ts';

/** The provider rejected the request as malformed (4xx other than auth), or a capability is missing. */
export class InvalidRequestError extends AdapterError {
  override name = 'InvalidRequestError';

  constructor(options: Omit<AdapterErrorOptions, 'errorClass'>) {
    super({ ...options, errorClass: 'invalid_request' });
  }
}
