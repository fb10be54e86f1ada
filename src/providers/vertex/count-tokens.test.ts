import { describe, expect, it } from 'vitest';
import type { ProviderContext } from '../common/definition.ts';
import { buildCountRequest, parseTokenCount } from './count-tokens.ts';

const context = (model: string) => ({ model, provider: 'vertex' }) as ProviderContext;

describe('vertex count-tokens', () => {
  it('a Gemini model’s request goes to :countTokens with only the fields that endpoint takes', () => {
    const wire = {
      path: '/publishers/google/models/gemini-2.5-flash:generateContent',
      body: {
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
        safetySettings: [],
        generationConfig: { maxOutputTokens: 64 },
      },
    };
    expect(buildCountRequest(wire, context('gemini-2.5-flash'))).toEqual({
      path: '/publishers/google/models/gemini-2.5-flash:countTokens',
      body: {
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        generationConfig: { maxOutputTokens: 64 },
      },
    });
  });

  it('another publisher’s model (Claude) has no count here: undefined, nothing to send', () => {
    const wire = { path: '/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict', body: {} };
    expect(buildCountRequest(wire, context('claude-sonnet-4-5@20250929'))).toBeUndefined();
  });

  it('reads totalTokens, and nothing from a body without it', () => {
    expect(parseTokenCount({ totalTokens: 31, totalBillableCharacters: 90 })).toBe(31);
    expect(parseTokenCount({ total: 31 })).toBeUndefined();
  });
});
