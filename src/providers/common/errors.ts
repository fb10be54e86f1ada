/** Turns provider error responses into classified errors whose messages never hold the API key. */
import type { AdapterError } from '../../core/errors/adapter-error.ts';
import { createAdapterError } from '../../core/errors/create-error.ts';
import { NetworkError } from '../../core/errors/network-error.ts';
import { isRetryableClass } from '../../core/errors/error-class.ts';
import { classifyError, type ErrorBody, type ErrorRule } from '../../core/errors/status-map.ts';
import { REDACTED, redactSecrets as redactText, redactUrl } from '../../core/redaction.ts';
import { parseJson } from '../../core/json-text.ts';

/**
 * An error body read with `convert` (the protocol's envelope): a body that is not JSON, or JSON that
 * is not the envelope (an HTML page from a proxy, plain text), becomes a trimmed message without a
 * code; an empty body yields nothing. Shared by the protocols whose bodies follow this rule.
 */
export function parseErrorText(
  text: string,
  convert: (value: unknown) => ErrorBody | undefined,
  maxMessageLength = 500,
): ErrorBody {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  let parsed: unknown;
  try {
    parsed = parseJson(trimmed);
  } catch {
    return { message: trimmed.slice(0, maxMessageLength) };
  }
  return convert(parsed) ?? { message: trimmed.slice(0, maxMessageLength) };
}

/** Where a failure happened, for the message. */
export interface FailureSite {
  provider: string;
  method: string;
  url: string;
  requestId?: string;
}

/**
 * Removes `secret` and every provider key shape (`sk-`, `sk-ant-`, `AIza`, `gsk_`, `xai-`) from
 * `text`, and a start of `secret` (4 characters or more) at its end: a provider message cut to its
 * length limit (500, 2,000 characters) inside an echoed key keeps a piece no pattern matches.
 */
export function redactSecrets(text: string, secret: string | undefined): string {
  const redacted = redactText(text, [secret]);
  return secret === undefined ? redacted : withoutTrailingStart(redacted, secret);
}

const minimumTrailingPiece = 4;

function withoutTrailingStart(text: string, secret: string): string {
  for (let length = Math.min(secret.length - 1, text.length); length >= minimumTrailingPiece; length--) {
    if (text.endsWith(secret.slice(0, length))) return text.slice(0, -length) + REDACTED;
  }
  return text;
}

/**
 * A message saying the provider is overloaded (OpenAI's "The engine is currently overloaded", "That
 * model is currently overloaded with other requests", Gemini's "The model is overloaded", a bare
 * "Overloaded"): the word opening the message or after `is`, `are`, `currently`, `server`…, never
 * any text that only holds it ("the service was not overloaded"), denies it — a negation (`not`,
 * `n't`, `no longer`) up to two words before that lead word ("the service is not currently
 * overloaded", "isn't overloaded") or `false` right after it ("server overloaded: false").
 */
const overloadMessage = new RegExp(
  String.raw`(?:^|\b(?<!(?:\bnot|n['’]t|\bno longer)(?:\s+\w+){0,2}\s+)(?:is|are|currently|temporarily|model|engine|server|servers|service|system)\s+)` +
    String.raw`overloaded\b(?!["']?\s*[:=]?\s*["']?false\b)`,
  'i',
);

/**
 * The statuses at which words alone may call a failure an overload: none (an in-band error, or an
 * error in a 200 body), a 429 (OpenAI sends "The engine is currently overloaded" with one) and
 * every 5xx. Any other 4xx is the request's own fault whatever its words say (a 400 "function name
 * 'search' is overloaded" is an invalid request, not a provider out of capacity); 529 and the
 * `overloaded_error`/`overloaded` codes are overloads by their own rules.
 */
const overloadMessageStatuses: readonly number[] = [
  0,
  429,
  ...Array.from({ length: 100 }, (_, index) => 500 + index),
];

/**
 * Conditions classified the same on every adapter, before the adapter's own rules. "Overloaded"
 * (Anthropic 529 `overloaded_error`, OpenAI/Gemini "model is overloaded" in-band, with a 429 or a
 * 5xx — see `overloadMessageStatuses`) is `server_error` and an overload (`AdapterError.overloaded`):
 * the provider lacks capacity, which says nothing about the caller's quota, so a router should fall
 * back to another provider rather than wait for a rate-limit window. It stays retryable, and a
 * `retry-after` hint is still honoured.
 */
export const sharedErrorRules: readonly ErrorRule[] = [
  { code: 'overloaded_error', errorClass: 'server_error', overload: true },
  { code: 'overloaded', errorClass: 'server_error', overload: true },
  { status: 529, errorClass: 'server_error', overload: true },
  { message: overloadMessage, status: overloadMessageStatuses, errorClass: 'server_error', overload: true },
];

/** The longest provider code an error keeps (AWS's longest exception name is under 50). */
export const maxProviderCodeLength = 100;

/** How much of a code is searched for secrets: far past what is kept, and past any secret's length. */
const codeWindow = 16_384;

/** A terminal's CSI sequence (`ESC [ 2 J`) whole, and every other control or format character (ESC, BEL, bidi overrides). */
// eslint-disable-next-line no-control-regex
const unprintable = /\x1b\[[0-?]*[ -/]*[@-~]|(?![\t\n\v\f\r\u0085])[\p{Cc}\p{Cf}]/gu;

/** Runs of blanks and line or paragraph separators (newline, tab, U+2028). */
const blanks = /[\s\p{Zl}\p{Zp}]+/gu;

/**
 * A provider's code as an error keeps it, whichever adapter read it: redacted (an event `type` or an
 * exception name can echo anything, the key included), every run of blanks and line breaks one
 * space, CSI sequences and other control and format characters removed — as the CLI cleans a
 * terminal's text (no ESC sequence or line break reaches a terminal, a log line or a gateway client), and
 * at most {@link maxProviderCodeLength} characters, `…` ending a longer one.
 */
export function providerCodeOf(code: string, apiKey?: string): string {
  const clean = redactSecrets(code.slice(0, codeWindow), apiKey)
    .replace(blanks, ' ')
    .replace(unprintable, '')
    .trim();
  return clean.length <= maxProviderCodeLength ? clean : `${clean.slice(0, maxProviderCodeLength - 1)}…`;
}

/** Builds the classified error for a failed response (`status` 0 for in-stream/200-body errors). */
export function createProviderError(options: {
  site: FailureSite;
  status: number | undefined;
  body: ErrorBody;
  rules: readonly ErrorRule[];
  retryAfterSeconds?: number;
  /** The provider's `x-should-retry` (see `parseShouldRetry`): over the class's and the rules' word. */
  shouldRetry?: boolean;
  apiKey?: string;
}): AdapterError {
  const { site, status, body } = options;
  const { errorClass, retryable, overload } = classifyError(status ?? 0, body, [
    ...sharedErrorRules,
    ...options.rules,
  ]);
  const effectiveClass = status === undefined && errorClass === 'other' ? 'server_error' : errorClass;
  const providerMessage =
    body.message === undefined ? undefined : redactSecrets(body.message, options.apiKey);
  const statusText = status === undefined ? 'an in-band error' : String(status);
  const providerCode = body.code === undefined ? undefined : providerCodeOf(body.code, options.apiKey);
  const upstreamCode =
    body.upstreamCode === undefined ? undefined : providerCodeOf(body.upstreamCode, options.apiKey);
  const code = providerCode === undefined ? '' : ` ${providerCode}`;
  return createAdapterError(effectiveClass, {
    message: `${site.provider}: ${site.method} ${redactUrl(site.url)} failed with ${statusText}${code}${providerMessage ? `: ${providerMessage}` : ''}`,
    status,
    providerMessage,
    providerCode,
    ...(upstreamCode === undefined ? {} : { upstreamCode }),
    ...(overload ? { overloaded: true } : {}),
    retryable: options.shouldRetry ?? retryable ?? isRetryableClass(effectiveClass),
    retryAfterSeconds: options.retryAfterSeconds ?? body.retryAfterSeconds,
    requestId: site.requestId,
    provider: site.provider,
  });
}

/** The `providerCode` of a response cut short: the provider's finish signal never arrived. */
export const streamTruncatedCode = 'stream_truncated';

/**
 * The one error for a stream that ended without its provider's finish signal — the connection
 * closed, the body ended, or the terminator (`[DONE]`) came early: a retryable `NetworkError`
 * `stream_truncated`. The runtime then ends the response with finish reason `error`, keeping what
 * arrived and marking the parts it closed `incomplete`.
 */
export function createTruncatedError(
  site: { provider: string; requestId?: string },
  detail: string,
  cause?: unknown,
): NetworkError {
  return new NetworkError({
    message: `${site.provider}: the stream was cut short (${streamTruncatedCode}): ${detail}; the response is incomplete`,
    provider: site.provider,
    providerCode: streamTruncatedCode,
    retryable: true,
    ...(site.requestId === undefined ? {} : { requestId: site.requestId }),
    ...(cause === undefined ? {} : { cause }),
  });
}
