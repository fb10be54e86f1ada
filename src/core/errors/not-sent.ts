/**
 * Which errors an adapter raised before sending its request (its own checks, building the request):
 * the provider never saw the call. Kept aside (a WeakSet), not on the error, so nothing a caller
 * prints or serializes changes. A conversation reads it to take back an input nothing sent
 * (`conversation.send`).
 */
const notSent = new WeakSet<object>();

/** Records that `error` was raised before the request was sent; returns it. */
export function markNotSent<Failure>(error: Failure): Failure {
  if (typeof error === 'object' && error !== null) notSent.add(error);
  return error;
}

/** Whether `error` was raised by an adapter before its request was sent. */
export function isNotSent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && notSent.has(error);
}
