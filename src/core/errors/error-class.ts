/** The closed set of error classes every adapter classifies failures into. */

/** Why a call failed. Routing and analytics branch on this, never on provider strings. */
export type ErrorClass =
  | 'rate_limit'
  | 'auth'
  | 'server_error'
  | 'network'
  | 'context_overflow'
  | 'invalid_request'
  | 'cancelled'
  | 'other';

/** All error classes. */
export const errorClasses: readonly ErrorClass[] = [
  'rate_limit',
  'auth',
  'server_error',
  'network',
  'context_overflow',
  'invalid_request',
  'cancelled',
  'other',
];

/** Classes that are worth retrying with backoff. */
export function isRetryableClass(errorClass: ErrorClass): boolean {
  return errorClass === 'rate_limit' || errorClass === 'server_error' || errorClass === 'network';
}
