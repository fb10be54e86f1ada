/** The per-family capability table and model-name parsing. */
import { describe, expect, it } from 'vitest';
import { anthropicCapabilities, modelProfile } from './capabilities.ts';

describe('modelProfile', () => {
  it.each([
    ['claude-opus-4-7', 'claude-opus-4-7+', 'adaptive-only'],
    ['claude-opus-5', 'claude-opus-4-7+', 'adaptive-only'],
    ['claude-opus-4-6', 'claude-opus-4-6', 'adaptive'],
    ['claude-opus-4-5-20251101', 'claude-opus-4-5', 'budget'],
    ['claude-opus-4-1-20250805', 'claude-opus-4', 'budget'],
    ['claude-opus-4-20250514', 'claude-opus-4', 'budget'],
    ['claude-sonnet-4-6', 'claude-sonnet-4-6+', 'adaptive'],
    ['claude-sonnet-5', 'claude-sonnet-4-6+', 'adaptive'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5', 'budget'],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4', 'budget'],
    ['claude-3-7-sonnet-latest', 'claude-3-7-sonnet', 'budget'],
    ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet', 'none'],
    ['claude-haiku-4-5-20251001', 'claude-haiku-4-5', 'budget'],
    ['claude-3-5-haiku-20241022', 'claude-3-5-haiku', 'none'],
    ['claude-3-haiku-20240307', 'claude-3-haiku', 'none'],
    ['claude-3-opus-20240229', 'claude-3-opus', 'none'],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5', 'budget'],
    ['claude-opus-4-6[1m]', 'claude-opus-4-6', 'adaptive'],
    ['claude-mythos-5', 'claude-mythos', 'adaptive-only'],
    ['claude-mythos-preview', 'claude-mythos', 'adaptive-only'],
    ['claude-fable-5', 'claude-fable', 'adaptive-only'],
    ['claude-fable-5-1-20260101', 'claude-fable', 'adaptive-only'],
    ['anthropic.claude-mythos-5', 'claude-mythos', 'adaptive-only'],
    ['claude-mythology', 'unknown', 'none'],
    ['gpt-5', 'unknown', 'none'],
  ])('%s → %s (%s thinking)', (model, family, thinking) => {
    expect(modelProfile(model)).toMatchObject({ family, thinking });
  });
});

describe('anthropicCapabilities', () => {
  it('declares the families honestly', () => {
    const summary = (model: string) => {
      const { images, pdf, reasoning, structuredOutput, contextWindow, maxOutputTokens } =
        anthropicCapabilities(model);
      return { images, pdf, reasoning, structuredOutput, contextWindow, maxOutputTokens };
    };
    expect(summary('claude-opus-4-7')).toEqual({
      images: true,
      pdf: true,
      reasoning: true,
      structuredOutput: true,
      contextWindow: 1_000_000,
      maxOutputTokens: 128_000,
    });
    expect(summary('claude-sonnet-4-5')).toEqual({
      images: true,
      pdf: true,
      reasoning: true,
      structuredOutput: true,
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
    });
    expect(summary('claude-3-7-sonnet-20250219')).toMatchObject({ reasoning: true, structuredOutput: false });
    expect(summary('claude-3-5-haiku-20241022')).toMatchObject({ reasoning: false, maxOutputTokens: 8_192 });
    expect(summary('claude-3-haiku-20240307')).toMatchObject({
      pdf: false,
      reasoning: false,
      maxOutputTokens: 4_096,
    });
    expect(summary('claude-unknown')).toEqual({
      images: false,
      pdf: false,
      reasoning: false,
      structuredOutput: false,
      contextWindow: 0,
      maxOutputTokens: 0,
    });
  });

  it('gives Mythos and Fable models the adaptive-only Opus facts', () => {
    for (const model of ['claude-mythos-5', 'claude-mythos-preview', 'claude-fable-5']) {
      expect(anthropicCapabilities(model)).toEqual(anthropicCapabilities('claude-opus-4-7'));
      expect(modelProfile(model)).toMatchObject({ thinking: 'adaptive-only', exclusiveSampling: true });
    }
    expect(anthropicCapabilities('claude-mythos-5')).toMatchObject({
      images: true,
      tools: true,
      reasoning: true,
      structuredOutput: true,
      promptCaching: true,
    });
  });

  it('never claims audio or video, always tools, parallel tools, streaming and caching', () => {
    for (const model of ['claude-opus-4-7', 'claude-haiku-4-5', 'claude-3-haiku-20240307', 'unknown']) {
      expect(anthropicCapabilities(model)).toMatchObject({
        audio: false,
        video: false,
        tools: true,
        parallelToolCalls: true,
        streaming: true,
        streamingToolCalls: true,
        promptCaching: true,
        systemPrompt: true,
      });
    }
    expect(anthropicCapabilities('claude-sonnet-4-5').imageMediaTypes).toEqual([
      'image/jpeg',
      'image/png',
      'image/gif',
      'image/webp',
    ]);
  });
});
