/** The one rule for a provider's token count: what counts, what is absent. */
import { describe, expect, it } from 'vitest';
import { tokenCount } from './usage.ts';

describe('tokenCount', () => {
  it('keeps zero and positive counts, rounded', () => {
    expect(tokenCount(0)).toBe(0);
    expect(tokenCount(12)).toBe(12);
    expect(tokenCount(2.6)).toBe(3);
    expect(tokenCount(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('treats anything else as absent: negative, NaN, infinite, beyond 2^53 − 1, not a number', () => {
    for (const value of [
      -1,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1e308,
      Number.MAX_SAFE_INTEGER + 2,
      '12',
      null,
    ])
      expect(tokenCount(value), String(value)).toBeUndefined();
  });
});
