/** Bounded retries with exponential backoff, jitter and provider retry-after hints. */
import { AdapterError } from '../core/errors/adapter-error.ts';
import { CancelledError } from '../core/errors/cancelled-error.ts';
import { NetworkError } from '../core/errors/network-error.ts';
import { abortCause } from './cancellation.ts';

/** Retry policy: total attempts = 1 + maxRetries. */
export interface RetryPolicy {
  maxRetries: number;
  /** First backoff delay (doubled each retry). Default 1000 ms. */
  baseDelayMs?: number;
  /** Longest backoff delay without a hint. Default 8000 ms. */
  maxDelayMs?: number;
  /** Longest provider-hinted delay honoured. Default 60 s (docs/contract.md §6.4). */
  maxRetryAfterMs?: number;
}

/** The delay before retry number `attempt` (1-based): the hint when there is one, else backoff. */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  retryAfterSeconds: number | undefined,
): number {
  const cap = policy.maxRetryAfterMs ?? 60_000;
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0) {
    return Math.min(cap, Math.round(retryAfterSeconds * 1000));
  }
  const base = (policy.baseDelayMs ?? 1000) * 2 ** (attempt - 1);
  const capped = Math.min(policy.maxDelayMs ?? 8000, base);
  // Full jitter on the upper half: [capped/2, capped).
  return Math.round(capped / 2 + Math.random() * (capped / 2));
}

/**
 * Parses `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date) into seconds.
 * OpenAI's `x-ratelimit-reset-requests/-tokens` (`1s`, `6m0s`, `120ms`) are read as a fallback.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null },
  status?: number,
): number | undefined {
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && /^\d+(\.\d+)?$/.test(milliseconds.trim())) return Number(milliseconds) / 1000;
  const value = headers.get('retry-after');
  if (value !== null) {
    const trimmed = value.trim();
    if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
    // An HTTP-date names its month (`Fri, 01 Jan 2099 00:00:00 GMT`): V8's lenient parser also
    // reads `-5`, `5, 7` or `1 2` as dates (hence "retry now"); those are garbage, not hints.
    const date = httpDateMonth.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
    if (!Number.isNaN(date)) return Math.max(0, (date - Date.now()) / 1000);
  }
  // OpenAI sends the reset headers on every response: they mean "wait" only for a 429.
  if (status !== undefined && status !== 429) return undefined;
  const resets = [headers.get('x-ratelimit-reset-requests'), headers.get('x-ratelimit-reset-tokens')]
    .map((reset) => (reset === null ? undefined : parseGoDuration(reset)))
    .filter((seconds): seconds is number => seconds !== undefined);
  return resets.length > 0 ? Math.max(...resets) : undefined;
}

const httpDateMonth = /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/i;

/**
 * A provider's own word on whether to send a failed request again: `x-should-retry: true` or
 * `false` (OpenAI and Anthropic send it; their SDKs obey it over their status rule), else undefined.
 */
export function parseShouldRetry(headers: { get(name: string): string | null }): boolean | undefined {
  const value = headers.get('x-should-retry')?.trim().toLowerCase();
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/** Parses durations like `1s`, `6m0s`, `120ms`, `1.5s`, `2h` into seconds. */
export function parseGoDuration(text: string): number | undefined {
  const pattern = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let matched = '';
  for (const match of text.trim().matchAll(pattern)) {
    const amount = Number(match[1]);
    const unit = match[2];
    total +=
      unit === 'ms' ? amount / 1000 : unit === 's' ? amount : unit === 'm' ? amount * 60 : amount * 3600;
    matched += match[0];
  }
  return matched.length > 0 && matched === text.trim() ? total : undefined;
}

/** The error for a backoff cut short: `cancelled`, or the timeout that fired. */
function backoffAborted(signal: AbortSignal | undefined): Error {
  const cause = signal === undefined ? ({ kind: 'cancelled' } as const) : abortCause(signal);
  if (cause.kind === 'timeout') {
    return new NetworkError({
      message: `timed out during retry backoff (${cause.which} timeout of ${cause.ms} ms)`,
      providerCode: `timeout_${cause.which}`,
      retryable: true,
    });
  }
  return new CancelledError({ message: 'cancelled during retry backoff' });
}

/**
 * Sleeps `milliseconds`; rejects as soon as `signal` aborts (`CancelledError`, or the timeout's
 * `NetworkError`); resolves early when `onWake` calls its `wake`.
 */
export function sleep(
  milliseconds: number,
  signal: AbortSignal | undefined,
  onWake?: (wake: () => void) => () => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(backoffAborted(signal));
      return;
    }
    const subscription: { unsubscribe?: () => void; done?: boolean } = {};
    const cleanup = () => {
      subscription.done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      subscription.unsubscribe?.();
    };
    const onAbort = () => {
      cleanup();
      reject(backoffAborted(signal));
    };
    const timer = setTimeout(() => {
      cleanup();
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
    subscription.unsubscribe = onWake?.(() => {
      cleanup();
      resolve();
    });
    // Woken while subscribing: the subscription is dropped now that it exists.
    if (subscription.done) subscription.unsubscribe?.();
  });
}

/** A caller's say over each retry (`CallOptions.retryGate`, minus the request id the adapter adds). */
export interface RetryGateHook {
  allow(info: {
    attempt: number;
    delayMs: number;
    error: unknown;
    stage: 'wait' | 'send';
  }): boolean | Promise<boolean>;
  onWake?(wake: () => void): () => void;
}

/**
 * Runs `attempt` up to 1 + maxRetries times. Retries only `AdapterError`s marked retryable, only
 * while `canRetry()` (a stream stops retrying once an event was delivered), only when the
 * backoff ends before `deadline`, and only while `gate` (if any) allows it, before and after the
 * backoff.
 */
export async function withRetries<Value>(
  attempt: (attemptNumber: number) => Promise<Value>,
  options: {
    policy: RetryPolicy;
    signal?: AbortSignal;
    canRetry?: () => boolean;
    /**
     * When the whole call must end (`performance.now()` time). A retry whose delay would reach it is
     * not attempted: the last error is raised at once instead of waiting for the timeout.
     */
    deadline?: number;
    onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
    gate?: RetryGateHook;
  },
): Promise<Value> {
  for (let attemptNumber = 0; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      const retryable = AdapterError.isInstance(error) && error.retryable;
      const allowed = options.canRetry?.() ?? true;
      if (!retryable || !allowed || attemptNumber >= options.policy.maxRetries || options.signal?.aborted)
        throw error;
      const delayMs = retryDelayMs(
        attemptNumber + 1,
        options.policy,
        (error as AdapterError).retryAfterSeconds,
      );
      if (options.deadline !== undefined && performance.now() + delayMs >= options.deadline) throw error;
      const info = { attempt: attemptNumber + 1, delayMs, error };
      const gate = options.gate;
      if (gate !== undefined && !(await gate.allow({ ...info, stage: 'wait' }))) throw error;
      options.onRetry?.(info);
      await sleep(delayMs, options.signal, gate?.onWake?.bind(gate));
      if (gate !== undefined && !(await gate.allow({ ...info, stage: 'send' }))) throw error;
    }
  }
}
