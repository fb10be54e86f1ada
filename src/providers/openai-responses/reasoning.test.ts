/** Reasoning settings in a Responses request body: reasoning off (effort `none`) and effort levels a model lacks. */
import { describe, expect, it } from 'vitest';
import type { ReasoningRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { buildRequest, type RequestSettings } from './request.ts';
import { createTestContext } from './test-support.ts';

const settings: RequestSettings = {
  strictTools: false,
  state: 'stateless',
  path: '/responses',
  reasoningReplay: true,
  effortModels: ['*'],
  customTools: false,
};

function build(model: string, reasoning: ReasoningRequest) {
  const context = createTestContext({ model });
  const request = { model: `openai:${model}`, transcript: [userText('Hi')], maxOutputTokens: 100, reasoning };
  const { body } = buildRequest(request, context, settings);
  return { reasoning: body.reasoning, warnings: context.warnings.map((warning) => warning.message) };
}

describe('reasoning off (effort none)', () => {
  it('reaches gpt-5.1 and later as reasoning.effort none, without a summary, with no WARN', () => {
    expect(build('gpt-5.1', { effort: 'none' })).toEqual({ reasoning: { effort: 'none' }, warnings: [] });
  });

  it('reaches a model without "none" as its least level (gpt-5 minimal, o4-mini low), with a WARN', () => {
    for (const [model, least] of [
      ['gpt-5-mini', 'minimal'],
      ['o4-mini', 'low'],
    ] as const)
      expect(build(model, { effort: 'none' })).toEqual({
        reasoning: { effort: least },
        warnings: ['changed the reasoning effort to a level the model takes'],
      });
  });

  it('reaches a Codex model, which has no "none" (gpt-5.1-codex-max, gpt-5.2-codex), as low with a WARN', () => {
    for (const model of ['gpt-5.1-codex', 'gpt-5.1-codex-max', 'gpt-5.2-codex'])
      expect(build(model, { effort: 'none' })).toEqual({
        reasoning: { effort: 'low' },
        warnings: ['changed the reasoning effort to a level the model takes'],
      });
  });

  it('levels a model has pass as asked; one it lacks becomes the next it has', () => {
    expect(build('gpt-5-mini', { effort: 'minimal' }).reasoning).toEqual({
      effort: 'minimal',
      summary: 'auto',
    });
    expect(build('gpt-5.1', { effort: 'minimal' }).reasoning).toEqual({ effort: 'low', summary: 'auto' });
  });

  it('gpt-5-pro takes high only: any other level, off included, is sent as high with a WARN', () => {
    const changed = ['changed the reasoning effort to a level the model takes'];
    // Off asks for no summary: the model reasons anyway, nothing is shown.
    expect(build('gpt-5-pro', { effort: 'none' })).toEqual({
      reasoning: { effort: 'high' },
      warnings: changed,
    });
    for (const effort of ['minimal', 'medium'] as const)
      expect(build('gpt-5-pro', { effort })).toEqual({
        reasoning: { effort: 'high', summary: 'auto' },
        warnings: changed,
      });
    expect(build('gpt-5-pro-2025-10-06', { effort: 'high' })).toEqual({
      reasoning: { effort: 'high', summary: 'auto' },
      warnings: [],
    });
  });
});

describe('the highest effort (xhigh)', () => {
  const changed = ['changed the reasoning effort to a level the model takes'];

  it('reaches gpt-5.1-codex-max, gpt-5.2 and later as reasoning.effort xhigh, with no WARN', () => {
    for (const model of ['gpt-5.1-codex-max', 'gpt-5.2', 'gpt-5.2-codex', 'gpt-5.2-pro', 'gpt-5.4'])
      expect(build(model, { effort: 'xhigh' })).toEqual({
        reasoning: { effort: 'xhigh', summary: 'auto' },
        warnings: [],
      });
  });

  it('reaches a model without it as its highest level, high, with a WARN', () => {
    for (const model of ['gpt-5.1', 'gpt-5.1-codex', 'gpt-5-mini', 'o4-mini', 'gpt-5-pro'])
      expect(build(model, { effort: 'xhigh' })).toEqual({
        reasoning: { effort: 'high', summary: 'auto' },
        warnings: changed,
      });
  });

  it('max (Anthropic’s most) is OpenAI’s most: xhigh where the model takes it, else high, with the WARN', () => {
    expect(build('gpt-5.2', { effort: 'max' })).toEqual({
      reasoning: { effort: 'xhigh', summary: 'auto' },
      warnings: changed,
    });
    expect(build('gpt-5.1', { effort: 'max' })).toEqual({
      reasoning: { effort: 'high', summary: 'auto' },
      warnings: changed,
    });
  });
});
