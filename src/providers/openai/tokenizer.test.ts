import { describe, expect, it } from 'vitest';
import { countInRuns, maxTokenizerRun, tokenCounter } from './tokenizer.ts';

/** The pieces `countInRuns` hands to its counter. */
function piecesOf(text: string): string[] {
  const pieces: string[] = [];
  countInRuns(text, (piece) => {
    pieces.push(piece);
    return 1;
  });
  return pieces;
}

/** The longest run of one repeated code unit in `text`. */
function longestRepeat(text: string): number {
  let longest = 0;
  let run = 0;
  for (let index = 0; index < text.length; index++) {
    run = index > 0 && text[index] === text[index - 1] ? run + 1 : 1;
    longest = Math.max(longest, run);
  }
  return longest;
}

describe('countInRuns: the OpenAI tokenizer never sees a run it would merge in quadratic time', () => {
  it('counts ordinary text in one call, exactly', () => {
    const text = `The quick brown fox, naïve café — 東京 😀 ${'='.repeat(maxTokenizerRun)} 1234567\n\n  indented`;
    expect(piecesOf(text)).toEqual([text]);
  });

  it.each([
    ['one letter', 'x'],
    ['spaces', ' '],
    ['newlines and spaces', '\n '],
    ['a symbol', '='],
    ['digits', '7'],
    ['a non-ASCII letter', 'é'],
    ['CJK', '東'],
  ])('cuts a 100,000-unit run of %s into pieces no longer than the limit, losing nothing', (_, unit) => {
    const text = `start ${unit.repeat(100_000 / unit.length)} end`;
    const pieces = piecesOf(text);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces) expect(longestRepeat(piece)).toBeLessThanOrEqual(maxTokenizerRun);
    expect(pieces.length).toBeGreaterThan(100_000 / maxTokenizerRun - 2);
  });

  it('never cuts inside a surrogate pair', () => {
    const text = '😀'.repeat(5_000);
    const pieces = piecesOf(text);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces) {
      const first = piece.charCodeAt(0);
      expect(first >= 0xdc00 && first <= 0xdfff).toBe(false);
    }
  });

  it('stays within a token per cut of the exact o200k count', async () => {
    const { countTokens } = (await import('gpt-tokenizer/encoding/o200k_base')) as {
      countTokens(text: string): number;
    };
    const count = tokenCounter('o200k_base')!;
    for (const unit of ['x', ' ', '=', 'ab']) {
      const text = `a ${unit.repeat(3_000 / unit.length)} b`;
      const cuts = piecesOf(text).length - 1;
      expect(cuts).toBeGreaterThan(0);
      expect(Math.abs(count(text) - countTokens(text))).toBeLessThanOrEqual(cuts);
    }
  });

  it('counts a 1,000,000-character run of one letter (22 s for 250,000 before the cut)', () => {
    const count = tokenCounter('o200k_base')!;
    // 8 characters a token for a long run of 'x' in o200k.
    expect(count('x'.repeat(1_000_000))).toBeGreaterThan(100_000);
  });
});
