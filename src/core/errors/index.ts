/** Error classes, the error hierarchy and guards. */
export { AdapterError, type AdapterErrorOptions } from './adapter-error.ts';
export { AuthError } from './auth-error.ts';
export { CancelledError } from './cancelled-error.ts';
export { ContextOverflowError } from './context-overflow-error.ts';
export { createAdapterError } from './create-error.ts';
export { type ErrorClass, errorClasses, isRetryableClass } from './error-class.ts';
export {
  isAdapterError,
  isAuthError,
  isCancelledError,
  isContextOverflowError,
  isInvalidRequestError,
  isNetworkError,
  isRateLimitError,
  isServerError,
} from './guards.ts';
export { InvalidRequestError } from './invalid-request-error.ts';
export { NetworkError } from './network-error.ts';
export { RateLimitError } from './rate-limit-error.ts';
export { modelFailureError } from './model-failure.ts';
export { ServerError } from './server-error.ts';
export { classifyError, type ErrorBody, type ErrorRule, mapStatusToErrorClass } from './status-map.ts';
