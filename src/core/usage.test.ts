/** The one rule for a provider's token count: what counts, what is absent. */
import { describe, expect, it } from 'vitest';
import {
  billedTokens,
  emptyUsage,
  maxSearchesPerReply,
  searchCount,
  sumBuckets,
  tokenCount,
} from './usage.ts';

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

describe('sumBuckets', () => {
  it('adds web searches like a bucket, absent when neither side has any', () => {
    const searched = { ...emptyUsage(), input: 2, webSearches: 3 };
    expect(sumBuckets(searched, { webSearches: 2 })).toEqual({ ...emptyUsage(), input: 2, webSearches: 5 });
    expect(sumBuckets(emptyUsage(), searched).webSearches).toBe(3);
    expect(sumBuckets(emptyUsage(), { input: 1 })).not.toHaveProperty('webSearches');
  });

  it('billedTokens counts the searches of every model of a response', () => {
    const usage = {
      ...emptyUsage(),
      webSearches: 1,
      byModel: { 'openai:gpt-4.1': { ...emptyUsage(), webSearches: 2 } },
    };
    expect(billedTokens(usage).webSearches).toBe(3);
  });
});

describe('searchCount', () => {
  it('a count of searches up to maxSearchesPerReply; above it (2^53 from a hostile upstream) none', () => {
    expect(searchCount(3)).toBe(3);
    expect(searchCount(maxSearchesPerReply)).toBe(maxSearchesPerReply);
    expect(searchCount(maxSearchesPerReply + 1)).toBeUndefined();
    expect(searchCount(Number.MAX_SAFE_INTEGER)).toBeUndefined();
    expect(searchCount(-1)).toBeUndefined();
  });
});
