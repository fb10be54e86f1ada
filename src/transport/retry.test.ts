import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../core/errors/invalid-request-error.ts';
import { RateLimitError } from '../core/errors/rate-limit-error.ts';
import {
  parseGoDuration,
  parseRetryAfter,
  parseShouldRetry,
  retryDelayMs,
  sleep,
  withRetries,
} from './retry.ts';

describe('parseRetryAfter', () => {
  it('reads retry-after-ms first, then retry-after seconds, then an HTTP date', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1.5);
    expect(parseRetryAfter(new Headers({ 'retry-after': '7' }))).toBe(7);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(parseRetryAfter(new Headers({ 'retry-after': inTenSeconds }))).toBeGreaterThan(8);
  });
  it("falls back to OpenAI's x-ratelimit-reset-* durations", () => {
    expect(
      parseRetryAfter(
        new Headers({ 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' }),
      ),
    ).toBe(360);
    expect(parseGoDuration('120ms')).toBe(0.12);
    expect(parseGoDuration('soon')).toBeUndefined();
  });
  it('reads the rate-limit reset headers only for a 429 (OpenAI sends them on every response)', () => {
    const headers = new Headers({ 'x-ratelimit-reset-tokens': '6m0s' });
    expect(parseRetryAfter(headers, 500)).toBeUndefined();
    expect(parseRetryAfter(headers, 429)).toBe(360);
  });
  it('returns undefined without hints', () => {
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });
  it('ignores values that are neither seconds nor an HTTP-date (V8 would read some as dates)', () => {
    for (const value of ['-5', '-1.5', '5, 7', '1 2', '1e12', 'Infinity', 'soon', '0, 1000000000000'])
      expect(parseRetryAfter(new Headers({ 'retry-after': value }), 503), value).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 1970 00:00:00 GMT' }))).toBe(0);
  });
});

describe('parseShouldRetry', () => {
  it("reads the provider's x-should-retry: true, false (any case, spaced), else nothing", () => {
    const read = (value?: string) =>
      parseShouldRetry(new Headers(value === undefined ? {} : { 'x-should-retry': value }));
    expect([read('true'), read(' FALSE '), read('false')]).toEqual([true, false, false]);
    expect([read(), read('yes'), read('1'), read('')]).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('retryDelayMs', () => {
  it('honours a hint up to 60 s', () => {
    expect(retryDelayMs(1, { maxRetries: 2 }, 3)).toBe(3000);
    expect(retryDelayMs(1, { maxRetries: 2 }, 600)).toBe(60_000);
  });
  it('backs off exponentially with jitter in [d/2, d)', () => {
    for (let attempt = 1; attempt <= 4; attempt++) {
      const full = Math.min(8000, 1000 * 2 ** (attempt - 1));
      const delay = retryDelayMs(attempt, { maxRetries: 5 }, undefined);
      expect(delay).toBeGreaterThanOrEqual(full / 2);
      expect(delay).toBeLessThanOrEqual(full);
    }
  });
});

describe('withRetries', () => {
  const policy = { maxRetries: 2, baseDelayMs: 1 };
  it('makes 1 + maxRetries attempts for a retryable error, then throws it', async () => {
    let attempts = 0;
    const retries: number[] = [];
    await expect(
      withRetries(
        async () => {
          attempts++;
          throw new RateLimitError({ message: 'slow', retryable: true });
        },
        { policy, onRetry: (info) => retries.push(info.attempt) },
      ),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(attempts).toBe(3);
    expect(retries).toEqual([1, 2]);
  });
  it('does not retry a non-retryable error', async () => {
    let attempts = 0;
    await expect(
      withRetries(
        async () => {
          attempts++;
          throw new InvalidRequestError({ message: 'bad' });
        },
        { policy },
      ),
    ).rejects.toThrow('bad');
    expect(attempts).toBe(1);
  });
  it('stops retrying once canRetry() says no (a stream delivered an event)', async () => {
    let attempts = 0;
    await expect(
      withRetries(
        async () => {
          attempts++;
          throw new RateLimitError({ message: 'x', retryable: true });
        },
        { policy, canRetry: () => false },
      ),
    ).rejects.toThrow();
    expect(attempts).toBe(1);
  });
  it('abort during backoff rejects promptly with a CancelledError', async () => {
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 20);
    await expect(sleep(10_000, controller.signal)).rejects.toMatchObject({ errorClass: 'cancelled' });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('retry gate', () => {
  const failing = () =>
    Promise.reject(new RateLimitError({ message: 'slow down', retryAfterSeconds: 30, retryable: true }));

  it('a gate saying no before the backoff raises the error at once (no wait, no retry)', async () => {
    const stages: string[] = [];
    let attempts = 0;
    const run = withRetries(
      () => {
        attempts++;
        return failing();
      },
      {
        policy: { maxRetries: 2 },
        gate: {
          allow: ({ stage }) => {
            stages.push(stage);
            return false;
          },
        },
      },
    );
    await expect(run).rejects.toThrow('slow down');
    expect(attempts).toBe(1);
    expect(stages).toEqual(['wait']);
  });

  it('a wake ends a 30 s backoff early; the gate then refuses the send', async () => {
    let wake: (() => void) | undefined;
    let attempts = 0;
    const run = withRetries(
      () => {
        attempts++;
        return failing();
      },
      {
        policy: { maxRetries: 2 },
        gate: {
          allow: ({ stage }) => stage === 'wait',
          onWake: (callback) => {
            wake = callback;
            return () => (wake = undefined);
          },
        },
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    wake!();
    await expect(run).rejects.toThrow('slow down');
    expect(attempts).toBe(1);
    expect(wake).toBeUndefined();
  });
});
