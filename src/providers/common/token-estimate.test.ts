import { describe, expect, it } from 'vitest';
import type { ToolCallId } from '../../core/ids.ts';
import { userText } from '../../core/transcript.ts';
import { type CharacterRates, estimateByCharacters, estimateOutputTokens } from './token-estimate.ts';

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
