/** Text made safe for a terminal: controls removed, explicit bidirectional controls shown as escapes, all else as it is. */
import { describe, expect, it } from 'vitest';
import { escaped, oneLine, sanitize, WholeCharacters } from './terminal-text.ts';

/** Every explicit bidirectional formatting character: embeddings, overrides, their end; isolates, their end. */
const bidiControls = [
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
];

/** Text a terminal shows as it is: right-to-left scripts, their marks, emoji sequences, CJK, combining marks. */
const ordinary = [
  'مرحبا بالعالم',
  'שלום עולם',
  'abc \u200fשלום\u200e def \u061cمرحبا',
  '👨‍👩‍👧 ❤️ 🇫🇷 👍🏽',
  '日本語 한국어 中文',
  'café e\u0301 \u{1d400}',
  'tab\tand\nnewline',
].join(' | ');

describe('sanitize', () => {
  it('shows each explicit bidirectional control as its \\u escape (Trojan Source: nothing is reordered)', () => {
    for (const control of bidiControls) {
      const code = control.charCodeAt(0).toString(16);
      expect(sanitize(`a${control}b`)).toBe(`a\\u${code}b`);
    }
    // The classic: an override that would show `} if (admin) {` reordered.
    expect(sanitize('access = "user\u202e \u2066// admin\u2069 \u2066"')).toBe(
      'access = "user\\u202e \\u2066// admin\\u2069 \\u2066"',
    );
    expect(oneLine('x\u202ey\nz')).toBe('x\\u202ey z');
  });

  it('keeps right-to-left letters and marks, emoji, CJK and combining marks as they are', () => {
    expect(sanitize(ordinary)).toBe(ordinary);
  });

  it('still removes terminal control sequences', () => {
    expect(sanitize('ok\x1b[2J\x1b]0;title\x07\x9b31m\u202e!')).toBe('ok]0;title31m\\u202e!');
  });

  it('text cleaned in pieces, split anywhere (a surrogate pair too), reads as the whole cleaned at once', () => {
    const text = `${ordinary} 😀\u202eevil\u2069 𝐀`;
    const whole = sanitize(text);
    const wrong: number[] = [];
    for (let at = 0; at <= text.length; at++)
      if (sanitize(text.slice(0, at)) + sanitize(text.slice(at)) !== whole) wrong.push(at);
    expect(wrong).toEqual([]);
  });
});

describe('a stream cleaned delta by delta (WholeCharacters, then sanitize)', () => {
  it('reads as the whole cleaned at once, wherever the deltas split a CSI sequence or a surrogate pair', () => {
    const text = `ok\x1b[31mred\x1b[0m 😀\u202eevil\x1b[2J end\x1b`;
    const whole = sanitize(text);
    for (const size of [1, 2, 3, 5])
      for (let first = 1; first <= size; first++) {
        const stream = new WholeCharacters();
        let shown = '';
        for (let at = 0; at < text.length; at += at === 0 ? first : size)
          shown += sanitize(stream.take(text.slice(at, at + (at === 0 ? first : size))));
        shown += sanitize(stream.end());
        expect(shown).toBe(whole);
      }
  });

  it('keeps no more than a sequence’s length: a long run after ESC [ is let through as text', () => {
    const stream = new WholeCharacters();
    expect(stream.take('a\x1b[')).toBe('a');
    expect(stream.take('1'.repeat(100))).toBe(`\x1b[${'1'.repeat(100)}`);
  });
});

describe('escaped', () => {
  it('writes a code point as \\uXXXX, or \\u{XXXXX} beyond U+FFFF', () => {
    expect(escaped('\u202e')).toBe('\\u202e');
    expect(escaped('\u{e0041}')).toBe('\\u{e0041}');
  });
});

describe('WholeCharacters', () => {
  it('keeps a delta’s trailing first half of a surrogate pair for the next delta, and gives back a lone one at the end', () => {
    const whole = new WholeCharacters();
    expect(whole.take('a\ud83d')).toBe('a');
    expect(whole.take('\ude00b')).toBe('😀b');
    expect(whole.take('\ud83d')).toBe('');
    expect(whole.take('\ud83d')).toBe('\ud83d'); // Two first halves: the earlier one had no pair.
    expect(whole.end()).toBe('\ud83d');
    expect(whole.end()).toBe('');
    expect(whole.take('\ude00')).toBe('\ude00'); // A second half alone is written as it came.
  });
});
