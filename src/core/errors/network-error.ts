/** NetworkError: error class `network`. */
import { AdapterError, type AdapterErrorOptions } from './adapter-error.ts';

/** No usable response: connection refused or reset, DNS, TLS, or a timeout. */
export class NetworkError extends AdapterError {
  override name = 'NetworkError';

  constructor(options: Omit<AdapterErrorOptions, 'errorClass'>) {
    super({ ...options, errorClass: 'network' });
  }
}
