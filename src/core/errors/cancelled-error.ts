/** CancelledError: error class `cancelled`. */
import { AdapterError, type AdapterErrorOptions } from './adapter-error.ts';

/** The call was cancelled by `cancel()` or an AbortSignal. */
export class CancelledError extends AdapterError {
  override name = 'CancelledError';

  constructor(options: Omit<AdapterErrorOptions, 'errorClass'>) {
    super({ ...options, errorClass: 'cancelled' });
  }
}
