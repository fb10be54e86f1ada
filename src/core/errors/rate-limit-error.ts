/** RateLimitError: error class `rate_limit`. */
import { AdapterError, type AdapterErrorOptions } from './adapter-error.ts';

/** The provider signalled a rate limit or overload; `retryAfterSeconds` carries its hint. */
export class RateLimitError extends AdapterError {
  override name = 'RateLimitError';

  constructor(options: Omit<AdapterErrorOptions, 'errorClass'>) {
    super({ ...options, errorClass: 'rate_limit' });
  }
}

/** Codes of a rate limit that waiting does not cure: the account is out of credit. */
const outOfCreditCodes = new Set(['insufficient_quota', 'billing_error']);

/**
 * Whether a `rate_limit` error says the account is out of credit (a 402, OpenAI's
 * `insufficient_quota`, Anthropic's `billing_error`) rather than over a rate: every model of the
 * provider is refused alike, and waiting does not help.
 */
export function isOutOfCredit(error: Pick<AdapterError, 'status' | 'providerCode'>): boolean {
  return error.status === 402 || outOfCreditCodes.has(error.providerCode ?? '');
}
