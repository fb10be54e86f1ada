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

  it('a Claude model’s request goes to the one count-tokens:rawPredict, the model in the body, count_tokens’ fields only', () => {
    const wire = {
      path: '/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
      body: {
        anthropic_version: 'vertex-2023-10-16',
        max_tokens: 64,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hi' }],
        temperature: 0.2,
      },
      headers: { 'anthropic-beta': 'context-1m-2025-08-07' },
    };
    expect(buildCountRequest(wire, context('claude-sonnet-4-5@20250929'))).toEqual({
      path: '/publishers/anthropic/models/count-tokens:rawPredict',
      body: {
        model: 'claude-sonnet-4-5@20250929',
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hi' }],
      },
      headers: { 'anthropic-beta': 'context-1m-2025-08-07' },
    });
  });

  it('a Chat Completions publisher’s model (Mistral AI) has no count here: undefined, nothing to send', () => {
    const wire = { path: '/publishers/mistralai/models/mistral-medium-3:rawPredict', body: {} };
    expect(buildCountRequest(wire, context('mistral-medium-3'))).toBeUndefined();
  });

  it('reads totalTokens (Gemini) or input_tokens (Claude), and nothing from a body without either', () => {
    expect(parseTokenCount({ totalTokens: 31, totalBillableCharacters: 90 })).toBe(31);
    expect(parseTokenCount({ input_tokens: 14 })).toBe(14);
    expect(parseTokenCount({ total: 31 })).toBeUndefined();
  });
});
