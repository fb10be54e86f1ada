/** `output_config.effort` on the wire: an effort without thinking, adaptive thinking at the API's default effort, changed levels. */
import { describe, expect, it } from 'vitest';
import type { ReasoningRequest } from '../../core/request.ts';
import type { Item } from '../../core/transcript.ts';
import { buildTestRequest } from './test-support.ts';

const ask: Item[] = [{ kind: 'user', parts: [{ type: 'text', text: 'Answer.' }] }];

/** The thinking fields sent for `reasoning` to `model`, and the WARNs (messages and fields). */
function sent(reasoning: ReasoningRequest, model: string, extra: { temperature?: number } = {}) {
  const { body, warnings } = buildTestRequest(
    { transcript: ask, reasoning, maxOutputTokens: 32_000, ...extra },
    model,
  );
  return {
    thinking: body.thinking,
    outputConfig: body.output_config,
    temperature: body.temperature,
    warnings: warnings.map(({ message, fields }) => ({ message, fields })),
  };
}

describe('an effort without thinking (thinking: false)', () => {
  it('is output_config.effort alone on Opus 4.5, 4.6 and 4.7: no thinking, sampling kept', () => {
    for (const model of ['claude-opus-4-5', 'claude-opus-4-6', 'claude-sonnet-4-6', 'claude-opus-4-7'])
      for (const effort of ['low', 'medium', 'high'] as const)
        expect(sent({ effort, thinking: false }, model, { temperature: 0.2 })).toEqual({
          thinking: undefined,
          outputConfig: { effort },
          temperature: 0.2,
          warnings: [],
        });
  });

  it('keeps xhigh where the model takes it, else its most: max silently, Opus 4.5’s high with a WARN', () => {
    expect(sent({ effort: 'xhigh', thinking: false }, 'claude-opus-4-7').outputConfig).toEqual({
      effort: 'xhigh',
    });
    expect(sent({ effort: 'xhigh', thinking: false }, 'claude-opus-4-6')).toMatchObject({
      outputConfig: { effort: 'max' },
      warnings: [],
    });
    expect(sent({ effort: 'xhigh', thinking: false }, 'claude-opus-4-5')).toMatchObject({
      outputConfig: { effort: 'high' },
      warnings: [
        {
          message: 'changed the reasoning effort to a level the model takes',
          fields: { model: 'claude-opus-4-5', requested: 'xhigh', sent: 'high' },
        },
      ],
    });
  });

  // An Anthropic client's max to Opus 4.7, which takes both: before, max went as xhigh.
  it('keeps max where the model takes it (Opus 4.7 beside xhigh, Opus 4.6), else its most with a WARN', () => {
    expect(sent({ effort: 'max', thinking: false }, 'claude-opus-4-7')).toMatchObject({
      outputConfig: { effort: 'max' },
      warnings: [],
    });
    expect(sent({ effort: 'max' }, 'claude-opus-4-7')).toMatchObject({
      thinking: { type: 'adaptive' },
      outputConfig: { effort: 'max' },
    });
    expect(sent({ effort: 'max', thinking: false }, 'claude-opus-4-6').outputConfig).toEqual({
      effort: 'max',
    });
    expect(sent({ effort: 'max', thinking: false }, 'claude-opus-4-5')).toMatchObject({
      outputConfig: { effort: 'high' },
      warnings: [{ fields: { requested: 'max', sent: 'high' } }],
    });
  });

  it('is dropped with a WARN on a model that takes no effort (Sonnet 4.5), never turned into thinking', () => {
    expect(sent({ effort: 'low', thinking: false }, 'claude-sonnet-4-5')).toEqual({
      thinking: undefined,
      outputConfig: undefined,
      temperature: undefined,
      warnings: [
        {
          message: 'dropped the effort: the model takes no output_config.effort',
          fields: expect.objectContaining({ model: 'claude-sonnet-4-5', requested: 'low' }),
        },
      ],
    });
  });
});

describe('adaptive thinking with no effort', () => {
  it('sends {type: adaptive} and no output_config.effort (the API defaults to high) on 4.6 and 4.7', () => {
    for (const model of ['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-opus-4-7'])
      expect(sent({ includeThoughts: true }, model)).toEqual({
        thinking: { type: 'adaptive' },
        outputConfig: undefined,
        temperature: undefined,
        warnings: [],
      });
  });

  it('gives a budget model high’s budget, with a WARN naming it', () => {
    const result = sent({ includeThoughts: true }, 'claude-opus-4-5');
    expect(result.thinking).toEqual({ type: 'enabled', budget_tokens: 16_384 });
    expect(result.warnings).toEqual([
      {
        message: 'chose a thinking budget: the model takes no adaptive thinking',
        fields: expect.objectContaining({ model: 'claude-opus-4-5', sent: 16_384 }),
      },
    ]);
  });
});

describe('an effort level the model does not take', () => {
  it('sends minimal as low with a WARN on adaptive models', () => {
    expect(sent({ effort: 'minimal' }, 'claude-opus-4-6')).toMatchObject({
      thinking: { type: 'adaptive' },
      outputConfig: { effort: 'low' },
      warnings: [
        {
          message: 'changed the reasoning effort to a level the model takes',
          fields: { requested: 'minimal', sent: 'low' },
        },
      ],
    });
  });
});

describe('a thinking budget and an effort both asked', () => {
  it('sends both on Opus 4.5 and 4.6 (only the budget went before): the API takes them together', () => {
    for (const model of ['claude-opus-4-5', 'claude-opus-4-6', 'claude-sonnet-4-6'])
      expect(sent({ budgetTokens: 8192, effort: 'medium', includeThoughts: true }, model)).toEqual({
        thinking: { type: 'enabled', budget_tokens: 8192 },
        outputConfig: { effort: 'medium' },
        temperature: undefined,
        warnings: [],
      });
  });

  it('sends the budget alone on a model that takes no effort (Sonnet 4.5), and adaptive thinking at the effort on Opus 4.7 (no budgets)', () => {
    expect(sent({ budgetTokens: 8192, effort: 'medium' }, 'claude-sonnet-4-5')).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 8192 },
      outputConfig: undefined,
    });
    expect(sent({ budgetTokens: 8192, effort: 'medium' }, 'claude-opus-4-7')).toMatchObject({
      thinking: { type: 'adaptive' },
      outputConfig: { effort: 'medium' },
    });
  });
});
