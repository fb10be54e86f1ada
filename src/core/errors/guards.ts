/** Type guards for adapter errors that work across duplicated copies of the package. */
import { AdapterError } from './adapter-error.ts';
import type { AuthError } from './auth-error.ts';
import type { CancelledError } from './cancelled-error.ts';
import type { ContextOverflowError } from './context-overflow-error.ts';
import type { ErrorClass } from './error-class.ts';
import type { InvalidRequestError } from './invalid-request-error.ts';
import type { NetworkError } from './network-error.ts';
import type { RateLimitError } from './rate-limit-error.ts';
import type { ServerError } from './server-error.ts';

function hasClass(value: unknown, errorClass: ErrorClass): boolean {
  return AdapterError.isInstance(value) && value.errorClass === errorClass;
}

/** True for any Switchyard adapter error. */
export function isAdapterError(value: unknown): value is AdapterError {
  return AdapterError.isInstance(value);
}
/** True for a `rate_limit` error. */
export function isRateLimitError(value: unknown): value is RateLimitError {
  return hasClass(value, 'rate_limit');
}
/** True for an `auth` error. */
export function isAuthError(value: unknown): value is AuthError {
  return hasClass(value, 'auth');
}
/** True for a `server_error` error. */
export function isServerError(value: unknown): value is ServerError {
  return hasClass(value, 'server_error');
}
/** True for a `network` error. */
export function isNetworkError(value: unknown): value is NetworkError {
  return hasClass(value, 'network');
}
/** True for a `context_overflow` error. */
export function isContextOverflowError(value: unknown): value is ContextOverflowError {
  return hasClass(value, 'context_overflow');
}
/** True for an `invalid_request` error. */
export function isInvalidRequestError(value: unknown): value is InvalidRequestError {
  return hasClass(value, 'invalid_request');
}
/** True for a `cancelled` error. */
export function isCancelledError(value: unknown): value is CancelledError {
  return hasClass(value, 'cancelled');
}
