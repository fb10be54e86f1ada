import { describe, expect, it } from 'vitest';
import type { ToolCallId } from '../../core/ids.ts';
import { userText } from '../../core/transcript.ts';
import type { TokenEstimateInput } from '../../core/adapter.ts';
import { estimateInputTokens as estimateAnthropic } from '../anthropic/tokens.ts';
import { estimateInputTokens as estimateGemini } from '../gemini/tokens.ts';
import { estimateInputTokens as estimateOpenAI } from '../openai-chat/tokens.ts';
import { estimateInputTokens as estimateResponses } from '../openai-responses/tokens.ts';
import { openaiRates } from '../openai/tokens.ts';
import { tokenCounter } from '../openai/tokenizer.ts';
import {
  type CharacterRates,
  countWordStarts,
  countWordTokens,
  estimateByCharacters,
  estimateByCounter,
  estimateOutputTokens,
  estimateUpperBound,
  wordCalibration,
} from './token-estimate.ts';

const rates: CharacterRates = {
  charactersPerToken: 4,
  perRequest: 3,
  perMessage: 4,
  perToolPart: 2,
  perTool: 5,
  image: 100,
  otherMedia: 50,
  file: 70,
};

describe('estimateByCharacters', () => {
  it('counts characters once across the request, plus framing and flat media costs', () => {
    const estimate = estimateByCharacters(
      {
        transcript: [
          userText('abcd'.repeat(10)),
          {
            kind: 'user',
            parts: [
              {
                type: 'media',
                modality: 'image',
                mimeType: 'image/png',
                data: { type: 'uri', uri: 'https://x/a.png' },
              },
              {
                type: 'media',
                modality: 'audio',
                mimeType: 'audio/wav',
                data: { type: 'uri', uri: 'https://x/a.wav' },
              },
              { type: 'file', mimeType: 'application/pdf', data: { type: 'uri', uri: 'https://x/a.pdf' } },
            ],
          },
          { kind: 'assistant', parts: [{ type: 'tool-call', id: 't' as ToolCallId, name: 'ab', input: {} }] },
          {
            kind: 'tool',
            parts: [
              {
                type: 'tool-result',
                callId: 't' as ToolCallId,
                output: { type: 'text', text: 'ok' },
                isError: false,
              },
            ],
          },
        ],
        tools: [{ name: 'ab', inputSchema: {} }],
      },
      rates,
    );
    // Characters: 40 + (2 + 2) + 2 + (2 + 2) = 50 → 13 tokens; framing 3 + 4×4 + 2×2 + 5; media 100 + 50 + 70.
    expect(estimate).toBe(13 + 3 + 16 + 4 + 5 + 220);
  });
});

describe('estimateOutputTokens', () => {
  it('counts text, reasoning and tool inputs at four characters a token', () => {
    expect(
      estimateOutputTokens([
        { type: 'text', text: 'abcdefgh' },
        { type: 'reasoning', text: 'abcd' },
        { type: 'tool-call', id: 't' as ToolCallId, name: 'ab', input: { a: 1 } },
      ]),
    ).toBe(Math.ceil((8 + 4 + 2 + 7) / 4));
  });
});

describe('estimateUpperBound', () => {
  const texts = {
    english: 'The quick brown fox jumps over the lazy dog. '.repeat(40),
    'single letters': 'a b c d e f g h i j '.repeat(40),
    digits: '0123456789'.repeat(40),
    symbols: '{}[]()<>;:,.!?'.repeat(40),
    chinese: '我们今天去公园散步，天气很好。'.repeat(40),
    emoji: '🙂🚀👍🏽'.repeat(40),
    'one long word': 'a'.repeat(3000),
  };
  const estimators = {
    anthropic: estimateAnthropic,
    gemini: estimateGemini,
    'openai (exact tokenizer)': estimateOpenAI,
    'openai responses': estimateResponses,
  };

  it.each(Object.entries(texts))(
    'bounds every adapter estimate of %s text with tools and tool parts',
    (_kind, text) => {
      const input: TokenEstimateInput = {
        model: 'gpt-4o',
        transcript: [
          { kind: 'system', parts: [{ type: 'text', text }] },
          userText(text),
          {
            kind: 'assistant',
            parts: [{ type: 'tool-call', id: 'c1' as ToolCallId, name: 'run', input: { text } }],
          },
          {
            kind: 'tool',
            parts: [
              {
                type: 'tool-result',
                callId: 'c1' as ToolCallId,
                isError: false,
                output: { type: 'text', text },
              },
            ],
          },
        ],
        tools: [
          {
            name: 'run',
            description: text,
            inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
          },
        ],
      };
      const bound = estimateUpperBound(input);
      for (const [name, estimate] of Object.entries(estimators)) {
        for (const model of ['gpt-4o', 'claude-opus-4-7', 'gemini-2.5-pro', 'unknown-model']) {
          expect(estimate({ ...input, model }), `${name} on ${model}`).toBeLessThanOrEqual(bound);
        }
      }
    },
  );
});

describe('estimateByCounter with stopAbove (the context-window check)', () => {
  const prose = 'The quick brown fox jumps over the lazy dog, twice; "quoted" (text) and 12345.\n';
  const input = (text: string, stopAbove?: number): TokenEstimateInput => ({
    transcript: [userText(text), userText('A second message.')],
    ...(stopAbove === undefined ? {} : { stopAbove }),
  });

  it('stops counting once past stopAbove: the rest of a long text is never counted', () => {
    let counted = 0;
    const counter = (text: string) => {
      counted += text.length;
      return Math.ceil(text.length / 4);
    };
    const text = prose.repeat(40_000);
    const estimate = estimateByCounter(input(text, 10_000), openaiRates, counter);
    expect(estimate).toBeGreaterThan(10_000);
    expect(counted).toBeLessThan(text.length / 4);
  });

  it('below stopAbove the count is the whole count, exactly (pieces cut at word breaks)', () => {
    const text = prose.repeat(4_000);
    const model = 'openai:gpt-4o';
    const whole = estimateOpenAI({ ...input(text), model });
    expect(estimateOpenAI({ ...input(text, whole + 1), model })).toBe(whole);
    expect(estimateOpenAI({ ...input(text, whole - 1), model })).toBeGreaterThan(whole - 1);
  });
});

/**
 * Texts of pieces picked from `alphabet` by a fixed pseudo-random sequence: letters, digits, every
 * kind of space, symbols, contractions, CJK, combining marks, astral and lone surrogates.
 */
function generatedTexts(count: number, alphabet: readonly string[]): string[] {
  let state = 7;
  const next = (bound: number) => {
    state = (state * 1103515245 + 12345) >>> 0;
    return state % bound;
  };
  return Array.from({ length: count }, () => {
    let text = '';
    for (let length = next(20); length > 0; length--) text += alphabet[next(alphabet.length)];
    return text;
  });
}

const pieces = [
  ...'aZq09 {}"\\/:.,-_$\'',
  ...['\t', '\n', '\r\n', '\v', '\f', '\x1c', '\x00', '\x7f', '\u00a0', '\u3000', '\ufeff', '\u2028'],
  ...['The', 'HTTP', 'word', '1234', "'s", "'t", "'ll", "don't", '!\n/', '//'],
  ...['é', 'ï', 'ß', 'Ω', 'ǅ', 'ـ', '\u0301', '日', '本', '〇', '々', 'ー', '・', 'ア', 'あ', '한', '\u2e80'],
  ...['²', '½', 'Ⅻ', 'ⅰ', '٣', '🚀', '𝐀', '𠀀', '\ud800', '\udc00', '<|endoftext|>'],
];

describe('countWordTokens', () => {
  // The counter's definition: every match of this pattern, in order (the counter classifies
  // characters itself: a regular expression over every token was 5–10× slower).
  const pattern =
    /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])|(\p{L}+)|(\p{N})|([^\p{L}\p{N}\s])|(\s+)/gu;
  const byPattern = (text: string) => {
    let tokens = 0;
    for (const match of text.matchAll(pattern)) {
      if (match[1] !== undefined || match[3] !== undefined) tokens += wordCalibration.digitTokens;
      else if (match[2] !== undefined)
        tokens +=
          wordCalibration.wordTokens * Math.ceil(match[2].length / wordCalibration.lettersPerWordToken);
      else if (match[4] !== undefined) tokens += wordCalibration.symbolTokens;
      else tokens += Math.floor(match[5]!.length / wordCalibration.whitespacePerToken);
    }
    return Math.ceil(tokens);
  };

  it('counts every text as the pattern does (CJK, letter runs through any script, digits, symbols, spaces)', () => {
    const texts = generatedTexts(20_000, pieces);
    expect(texts.filter((text) => countWordTokens(text) !== byPattern(text))).toEqual([]);
  });

  it('counts long runs of whitespace as the pattern does (pieces of 16 to 3,000 spaces of every kind)', () => {
    const runs = ['\t'.repeat(16), ' '.repeat(17), '\n'.repeat(40), '\u3000 '.repeat(20), ' '.repeat(3000)];
    const texts = generatedTexts(5_000, [...pieces, ...runs]);
    expect(texts.filter((text) => countWordTokens(text) !== byPattern(text))).toEqual([]);
  });

  it('counts a whitespace run between the BPE tokenizers: not above spaces, not below newlines and tabs', () => {
    const o200k = tokenCounter('o200k_base')!;
    const cl100k = tokenCounter('cl100k_base')!;
    const bpe = (text: string) => [o200k(text), cl100k(text)];
    for (const length of [16, 100, 1024, 4096, 70_001]) {
      const run = (unit: string) => unit.repeat(length / unit.length + 1).slice(0, length);
      const estimate = countWordTokens(run(' '));
      expect([length, estimate]).toEqual([length, Math.floor(length / 16)]);
      // Spaces merge 128 a token; newlines and tabs 16 (o200k) or 32 (cl100k); space-newline pairs 4.
      expect(Math.max(...bpe(run(' ')))).toBeLessThanOrEqual(estimate);
      for (const unit of ['\n', '\t', '\r\n'])
        expect(Math.max(...bpe(run(unit))), JSON.stringify(unit)).toBeGreaterThanOrEqual(estimate - 1);
      expect(Math.min(...bpe(run(' \n')))).toBeGreaterThanOrEqual(estimate);
    }
    // Short runs (a space, a paragraph break, an indent) cost nothing: the calibration absorbs them.
    expect(countWordTokens('a b\n\nc\n            d')).toBe(countWordTokens('abcd'.split('').join(' ')));
  });

  it('a body of 30 MiB of spaces is far past a context window, and counting stops inside the run', () => {
    const spaces = ' '.repeat(30 * 1024 * 1024);
    expect(countWordTokens(spaces)).toBe(spaces.length / 16);
    const stopped = countWordTokens(spaces, 200_000);
    expect(stopped).toBeGreaterThan(200_000);
    expect(stopped).toBeLessThanOrEqual(200_000 + 4096);
  });

  it('stops once past stopAbove, and below it counts the whole text', () => {
    const text = 'The quick brown fox, 12 times. '.repeat(10_000);
    const whole = countWordTokens(text);
    expect(countWordTokens(text, whole)).toBe(whole);
    const stopped = countWordTokens(text, 1000);
    expect(stopped).toBeGreaterThan(1000);
    expect(stopped).toBeLessThan(1010);
  });
});

describe('countWordStarts', () => {
  const o200k = tokenCounter('o200k_base')!;
  const cl100k = tokenCounter('cl100k_base')!;

  it('never counts more than the BPE tokenizers or the word counter (it settles an overflow for them)', () => {
    const above = generatedTexts(20_000, pieces).filter((text) => {
      const words = countWordStarts(text);
      return words > o200k(text) || words > cl100k(text) || words > countWordTokens(text);
    });
    expect(above).toEqual([]);
  });

  it('counts the words, numbers and names of prose and code, and stops once past stopAbove', () => {
    // It 12 30 don wait for x y z: not the `s` and `t` after an apostrophe (`'s` may join a word).
    expect(countWordStarts("It's 12:30; don't wait for x.y/z\n")).toBe(9);
    expect(countWordStarts('word '.repeat(1000), 10)).toBe(11);
  });
});

describe('counting that stops early never writes out the rest as JSON', () => {
  /** Tool results with JSON values that count how often they are written out. */
  function jsonResults(count: number, size: number) {
    const written = { count: 0 };
    const value = { toJSON: () => (written.count++, 'word '.repeat(size)) };
    const transcript = Array.from({ length: count }, (_, index) => ({
      kind: 'tool' as const,
      parts: [
        {
          type: 'tool-result' as const,
          callId: `c${index}` as ToolCallId,
          isError: false,
          output: { type: 'json' as const, value: value as unknown as string },
        },
      ],
    }));
    return { transcript, written };
  }

  it('estimateUpperBound: past stopAbove, no later value is written; without it, the same bound', () => {
    const { transcript, written } = jsonResults(100, 1000);
    const whole = estimateUpperBound({ transcript });
    expect(written.count).toBe(100);
    written.count = 0;
    expect(estimateUpperBound({ transcript, stopAbove: whole })).toBe(whole);
    written.count = 0;
    expect(estimateUpperBound({ transcript, stopAbove: 10_000 })).toBeGreaterThan(10_000);
    expect(written.count).toBeLessThanOrEqual(3);
  });

  it('estimateByCounter: past stopAbove, no later value is written', () => {
    const { transcript, written } = jsonResults(100, 1000);
    const estimate = estimateByCounter({ transcript, stopAbove: 5000 }, rates, countWordTokens);
    expect(estimate).toBeGreaterThan(5000);
    expect(written.count).toBeLessThanOrEqual(6);
  });

  it('with a lower bound, a body far over is settled without the counter; near the limit it is counted', () => {
    // An exact tokenizer: counted in pieces cut at word breaks, it gives the whole text's count.
    const o200k = tokenCounter('o200k_base')!;
    let counted = 0;
    const counter = (text: string) => {
      counted += text.length;
      return o200k(text);
    };
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20_000);
    const far = estimateByCounter(
      { transcript: [userText(text)], stopAbove: 10_000 },
      openaiRates,
      counter,
      countWordStarts,
    );
    expect(far).toBeGreaterThan(10_000);
    expect(counted).toBe(0);
    const whole = estimateByCounter({ transcript: [userText(text)] }, openaiRates, counter);
    counted = 0;
    const near = whole - 1;
    expect(
      estimateByCounter(
        { transcript: [userText(text)], stopAbove: near },
        openaiRates,
        counter,
        countWordStarts,
      ),
    ).toBeGreaterThan(near);
    expect(counted).toBeGreaterThan(0);
    expect(
      estimateByCounter(
        { transcript: [userText(text)], stopAbove: whole },
        openaiRates,
        counter,
        countWordStarts,
      ),
    ).toBe(whole);
  });
});
