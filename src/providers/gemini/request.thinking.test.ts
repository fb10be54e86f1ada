/** Gemini request bodies asking for thinking: levels, budgets, and reasoning off, per model. */
import { describe, expect, it } from 'vitest';
import { convertReasoning } from './request.ts';
import { capabilitiesFor } from './capabilities.ts';
import { build, testContext } from './test-support.ts';

describe('golden request bodies', () => {
  it('thinking: an effort without thinking (an Anthropic client’s effort alone) is the level, thoughts not asked back', () => {
    expect(convertReasoning({ effort: 'low', thinking: false }, 'gemini-3-flash-preview')).toEqual({
      includeThoughts: false,
      thinkingLevel: 'low',
    });
  });

  it('thinking: a Gemini 3 effort becomes thinkingLevel, an older model a budget, never both', () => {
    expect(convertReasoning({ effort: 'medium' }, 'gemini-3-flash-preview')).toEqual({
      includeThoughts: true,
      thinkingLevel: 'medium',
    });
    expect(convertReasoning({ effort: 'medium' }, 'gemini-3-pro-preview')).toEqual({
      includeThoughts: true,
      thinkingLevel: 'high',
    });
    expect(convertReasoning({ effort: 'minimal' }, 'gemini-2.5-pro')).toEqual({
      includeThoughts: true,
      thinkingBudget: 128,
    });
    expect(convertReasoning({ effort: 'minimal' }, 'gemini-2.5-flash')).toEqual({
      includeThoughts: true,
      thinkingBudget: 0,
    });
    expect(
      convertReasoning(
        { budgetTokens: 2048, effort: 'high', includeThoughts: false },
        'gemini-3-pro-preview',
      ),
    ).toEqual({
      includeThoughts: false,
      thinkingBudget: 2048,
    });
  });

  it('thinking: an explicit budget over a 2.5 model’s largest is its largest, with a WARN (Gemini refuses one out of range)', () => {
    const warnings: Array<[string, Record<string, unknown>]> = [];
    const context = {
      warn: (message: string, fields: Record<string, unknown>) => void warnings.push([message, fields]),
    };
    expect(convertReasoning({ budgetTokens: 60_000 }, 'gemini-2.5-flash', context)).toEqual({
      includeThoughts: true,
      thinkingBudget: 24_576,
    });
    expect(convertReasoning({ budgetTokens: 4_294_967_297 }, 'gemini-2.5-pro', context)).toEqual({
      includeThoughts: true,
      thinkingBudget: 32_768,
    });
    expect(warnings.map(([message, fields]) => [message, fields.sent])).toEqual([
      ['lowered the thinking budget to the largest the model takes', 24_576],
      ['lowered the thinking budget to the largest the model takes', 32_768],
    ]);
    // Within range, and on Gemini 3 (its levels' range is not documented as a budget): as asked.
    expect(convertReasoning({ budgetTokens: 24_576 }, 'gemini-2.5-flash', context)).toMatchObject({
      thinkingBudget: 24_576,
    });
    expect(convertReasoning({ budgetTokens: 60_000 }, 'gemini-3-pro-preview', context)).toMatchObject({
      thinkingBudget: 60_000,
    });
    expect(warnings).toHaveLength(2);
  });

  it('thinking: xhigh and max are the most each model takes — level high, or high’s budget (the largest)', () => {
    for (const model of ['gemini-3-flash-preview', 'gemini-3-pro-preview'])
      for (const effort of ['xhigh', 'max'] as const)
        expect(convertReasoning({ effort }, model)).toEqual({
          includeThoughts: true,
          thinkingLevel: 'high',
        });
    for (const [model, budget] of [
      ['gemini-2.5-pro', 32_768],
      ['gemini-2.5-flash', 24_576],
    ] as const) {
      expect(convertReasoning({ effort: 'xhigh' }, model)).toEqual({
        includeThoughts: true,
        thinkingBudget: budget,
      });
      expect(convertReasoning({ effort: 'max' }, model)).toEqual({
        includeThoughts: true,
        thinkingBudget: budget,
      });
      expect(convertReasoning({ effort: 'high' }, model)).toEqual({
        includeThoughts: true,
        thinkingBudget: budget,
      });
    }
  });

  it('reasoning off: 2.5 Flash gets thinkingBudget 0; a model that cannot stop thinking its least, with a WARN', () => {
    const off = (model: string) => {
      const context = testContext({ model, capabilities: capabilitiesFor(model) });
      const { wire } = build({ model: `gemini:${model}`, reasoning: { effort: 'none' } }, context);
      const config = (wire.body as { generationConfig: Record<string, unknown> }).generationConfig;
      return { thinking: config.thinkingConfig, warnings: context.logger.entries };
    };
    for (const model of ['gemini-2.5-flash', 'gemini-2.5-flash-lite'])
      expect(off(model)).toEqual({ thinking: { thinkingBudget: 0 }, warnings: [] });
    for (const [model, least] of [
      ['gemini-2.5-pro', { thinkingBudget: 128 }],
      ['gemini-3-pro-preview', { thinkingLevel: 'low' }],
      ['gemini-3-flash-preview', { thinkingLevel: 'minimal' }],
    ] as const) {
      const { thinking, warnings } = off(model);
      expect(thinking).toEqual(least);
      expect(warnings).toEqual([
        expect.objectContaining({
          message: 'sent the least thinking the model takes: it cannot turn thinking off',
          fields: expect.objectContaining({ requested: 'none', sent: Object.values(least)[0] }),
        }),
      ]);
    }
    // A model that does not think: nothing to turn off.
    expect(off('gemini-2.0-flash')).toEqual({ thinking: undefined, warnings: [] });
  });
});
