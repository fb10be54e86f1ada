import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { createRequestId, createSessionId, createToolCallId } from './ids.ts';

describe('ids', () => {
  it('mints valid, unique ULIDs with the current time across many pool refills', () => {
    const before = Date.now();
    const ids = Array.from({ length: 5000 }, () => createRequestId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(isValid(id)).toBe(true);
    expect(decodeTime(ids.at(-1)!)).toBeGreaterThanOrEqual(before);
  });

  it('uses every one of the 32 characters in the random part, about evenly', () => {
    const counts = new Map<string, number>();
    for (let index = 0; index < 4000; index++)
      for (const char of createRequestId().slice(10)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(32);
    const expected = (4000 * 16) / 32;
    for (const count of counts.values()) expect(Math.abs(count - expected)).toBeLessThan(expected * 0.2);
  });

  it('prefixes tool-call and session ids', () => {
    expect(createToolCallId()).toMatch(/^tu_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(createSessionId()).toMatch(/^ses_[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});
