/** ContextOverflowError: error class `context_overflow`. */
import { AdapterError, type AdapterErrorOptions } from './adapter-error.ts';

/** The request exceeds the model's context window. */
export class ContextOverflowError extends AdapterError {
  override name = 'ContextOverflowError';

  constructor(options: Omit<AdapterErrorOptions, 'errorClass'>) {
    super({ ...options, errorClass: 'context_overflow' });
  }
}
