/** Builds the most specific error subclass for an error class. */
import { AdapterError, type AdapterErrorOptions } from './adapter-error.ts';
import { AuthError } from './auth-error.ts';
import { CancelledError } from './cancelled-error.ts';
import { ContextOverflowError } from './context-overflow-error.ts';
import type { ErrorClass } from './error-class.ts';
import { InvalidRequestError } from './invalid-request-error.ts';
import { NetworkError } from './network-error.ts';
import { RateLimitError } from './rate-limit-error.ts';
import { ServerError } from './server-error.ts';

/** Returns an instance of the subclass matching `errorClass`. */
export function createAdapterError(
  errorClass: ErrorClass,
  options: Omit<AdapterErrorOptions, 'errorClass'>,
): AdapterError {
  switch (errorClass) {
    case 'rate_limit':
      return new RateLimitError(options);
    case 'auth':
      return new AuthError(options);
    case 'server_error':
      return new ServerError(options);
    case 'network':
      return new NetworkError(options);
    case 'context_overflow':
      return new ContextOverflowError(options);
    case 'invalid_request':
      return new InvalidRequestError(options);
    case 'cancelled':
      return new CancelledError(options);
    case 'other':
      return new AdapterError({ ...options, errorClass: 'other' });
  }
}
