/**
 * Chat Completions error bodies: OpenAI's envelope and rules (`providers/openai/errors.ts`) after
 * the rules of the compatible hosts that speak this protocol (Groq, OpenRouter, Moonshot, …).
 */
import type { ErrorRule } from '../../core/errors/status-map.ts';
import { errorRules as openaiRules } from '../openai/errors.ts';

export { convertErrorBody, parseErrorBody, parseRetryHint } from '../openai/errors.ts';

/** A per-minute / per-day token quota (Groq TPM / TPD): a rate limit, even when the request is "too large". */
const tokenQuotaMessage = /tokens per (?:minute|day)|\b(?:TPM|TPD)\b/i;

/** The same, with the host's "try again in …" hint (read into `retryAfterSeconds`). */
const tokenQuotaWithHint = new RegExp(`(?:${tokenQuotaMessage.source})[\\s\\S]*try again in \\d`, 'i');

/**
 * The hosts' rules first (first match wins), then OpenAI's. A token quota (Groq 413 "Request too
 * large … tokens per minute (TPM)") is a `rate_limit`, not a context overflow; it is retryable only
 * when the body says when to try again (a request larger than the quota cannot succeed by retrying
 * it). A `Retry-After` header alone does not make it retryable: rules see only the body. OpenRouter
 * answers 402 when out of credit and passes Anthropic-style error types in-band; Moonshot names a
 * bad key `invalid_authentication`.
 */
export const errorRules: readonly ErrorRule[] = [
  { message: tokenQuotaWithHint, errorClass: 'rate_limit' },
  { message: tokenQuotaMessage, errorClass: 'rate_limit', retryable: false },
  ...openaiRules,
  { status: 402, errorClass: 'rate_limit', retryable: false },
  { code: 'invalid_authentication', errorClass: 'auth' },
  { code: 'authentication_error', status: 0, errorClass: 'auth' },
  { code: 'permission_error', status: 0, errorClass: 'auth' },
  { code: 'rate_limit_error', status: 0, errorClass: 'rate_limit' },
  { code: 'overloaded_error', status: 0, errorClass: 'server_error' },
];
