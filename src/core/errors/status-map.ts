/** The HTTP status → error class table (docs/contract.md §6.2), which adapters extend with body rules. */
import type { ErrorClass } from './error-class.ts';

/** The default class for an HTTP status, before provider body rules adjust it. */
export function mapStatusToErrorClass(status: number): ErrorClass {
  if (status === 401 || status === 403) return 'auth';
  if (status === 408) return 'network';
  if (status === 413) return 'context_overflow';
  if (status === 429) return 'rate_limit';
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'invalid_request';
  return 'other';
}

/** What an adapter extracted from a provider error body. */
export interface ErrorBody {
  /** Provider error code or type (`rate_limit_error`, `context_length_exceeded`, `RESOURCE_EXHAUSTED`). */
  code?: string;
  /**
   * The body's own `code` where it was a string (OpenAI's `error.code`), set by parsers whose `code`
   * above can stand for something else (OpenAI's takes the `type` when there is no string `code`).
   */
  upstreamCode?: string;
  message?: string;
  /** A provider-supplied retry delay found in the body (e.g. Google `RetryInfo.retryDelay`). */
  retryAfterSeconds?: number;
  /** The HTTP status the body itself names (an in-band error in a 200 response or stream). */
  status?: number;
}

/**
 * One rule adjusting the class from the body: matches a code exactly, and/or a message pattern,
 * optionally only for some statuses. The first matching rule wins.
 */
export interface ErrorRule {
  code?: string;
  message?: RegExp;
  status?: number | readonly number[];
  errorClass: ErrorClass;
  /** Override retryability (e.g. OpenAI `insufficient_quota` is a rate limit that must not be retried). */
  retryable?: boolean;
  /** The rule recognises an overload: the provider out of capacity (`AdapterError.overloaded`). */
  overload?: true;
}

const overridesBody = (status: number) => status === 401 || status === 403 || status === 429 || status >= 500;

/** Classifies a failure from its status and parsed body with the adapter's rules, then the table. */
export function classifyError(
  status: number,
  body: ErrorBody,
  rules: readonly ErrorRule[],
): { errorClass: ErrorClass; retryable: boolean | undefined; overload: boolean } {
  for (const rule of rules) {
    if (rule.status !== undefined) {
      const statuses = typeof rule.status === 'number' ? [rule.status] : rule.status;
      if (!statuses.includes(status)) continue;
    }
    if (rule.code !== undefined && rule.code !== body.code) continue;
    if (rule.message !== undefined && !rule.message.test(body.message ?? '')) continue;
    // A body that calls a 401, 403, 429 or 5xx an invalid request does not make it one: the status
    // keeps a rate limit or an outage retryable and an auth failure the operator's (a proxy, a
    // gateway or a provider's own bug can pair any body with any status).
    if (rule.errorClass === 'invalid_request' && overridesBody(status)) continue;
    return { errorClass: rule.errorClass, retryable: rule.retryable, overload: rule.overload === true };
  }
  return { errorClass: mapStatusToErrorClass(status), retryable: undefined, overload: false };
}
