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

describe('countInRuns: the OpenAI tokenizer never sees a run it would merge in quadratic time', () => {
  it('counts ordinary text in one call, exactly', () => {
    const words =
      'The quick brown fox, naïve café — 東京，日本 😀 ==== 1234567\n\n  {"a":[1,2],"b":"c"} (x).';
    const text = `${Array.from({ length: 2000 }, () => words).join(' ')}${'9'.repeat(5000)}`;
    expect(piecesOf(text)).toEqual([text]);
  });

  it.each([
    ['one letter', 'x'],
    ['spaces', ' '],
    ['newlines and spaces', '\n '],
    ['a symbol', '='],
    ['a non-ASCII letter', 'é'],
    ['CJK', '東'],
    ['ideographic and ASCII spaces alternating', '\u3000 '],
    ['a hyphen and an em dash alternating', '-\u2014'],
    ['a symbol and a combining mark alternating', '!\u0301'],
    ['a slash and a newline alternating (o200k joins them after a symbol)', '/\n'],
    ['a slash and CRLF alternating', '/\r\n'],
    ['a symbol and an emoji alternating', '!😀'],
    ['a space and a no-break space alternating', ' \u00a0'],
  ])('cuts a 100,000-unit run of %s into pieces no longer than the limit, losing nothing', (_, unit) => {
    const text = `start ${unit.repeat(100_000 / unit.length)} end`;
    const pieces = piecesOf(text);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces)
      expect(piece.replace(/^start/, '').replace(/ end$/, '').length).toBeLessThanOrEqual(
        maxTokenizerRun + 1,
      );
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

  it('counts special-token text as plain text instead of throwing', () => {
    const count = tokenCounter('o200k_base')!;
    expect(count('a <|endoftext|> b <|im_start|>')).toBeGreaterThan(5);
  });

  it('hands the counter no piece longer than the limit for a 1,000,000-character run (22 s for 250,000 uncut)', () => {
    const pieces = piecesOf('x'.repeat(1_000_000));
    expect(Math.max(...pieces.map((piece) => piece.length))).toBe(maxTokenizerRun);
    expect(tokenCounter('o200k_base')!('x'.repeat(1_000_000))).toBeGreaterThan(100_000);
  });
});
