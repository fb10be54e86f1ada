import { describe, expect, it } from 'vitest';
import type { ToolCallId } from '../../core/ids.ts';
import { userText } from '../../core/transcript.ts';
import type { TokenEstimateInput } from '../../core/adapter.ts';
import { estimateInputTokens as estimateAnthropic } from '../anthropic/tokens.ts';
import { estimateInputTokens as estimateGemini } from '../gemini/tokens.ts';
import { estimateInputTokens as estimateOpenAI } from '../openai-chat/tokens.ts';
import { estimateInputTokens as estimateResponses } from '../openai-responses/tokens.ts';
import { openaiRates } from '../openai/tokens.ts';
import {
  type CharacterRates,
  estimateByCharacters,
  estimateByCounter,
  estimateOutputTokens,
  estimateUpperBound,
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
