import { describe, expect, it } from 'vitest';
import type { CanonicalRequest, ReasoningRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { presets } from '../openai-compatible/presets.ts';
import { createCapabilityResolver } from './capabilities.ts';
import { type ChatQuirks, defaultQuirks, mergeQuirks, openaiQuirks, parseQuirks } from './quirks.ts';
import { clampEffort } from './reasoning.ts';
import { buildRequest, convertTools } from './request.ts';
import { createTestContext } from './test-support.ts';

const alibaba = mergeQuirks(defaultQuirks, presets.alibaba.quirks);
const xai = mergeQuirks(defaultQuirks, presets.xai.quirks);

function build(
  quirks: ChatQuirks,
  provider: string,
  model: string,
  extra: Partial<CanonicalRequest> = {},
  stream = false,
) {
  const context = createTestContext({ provider, model, stream });
  const request: CanonicalRequest = {
    model: `${provider}:${model}`,
    transcript: [
      { kind: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      { kind: 'user', parts: [{ type: 'text', text: 'Hi' }] },
    ],
    maxOutputTokens: 100,
    ...extra,
  };
  const { body } = buildRequest(request, context, { quirks, strictTools: false });
  return { body, warnings: context.warnings.map((warning) => warning.message) };
}

describe('DashScope thinking needs streaming', () => {
  it('sends enable_thinking false on a non-streaming call without reasoning (Qwen3 thinks by default)', () => {
    const { body, warnings } = build(alibaba, 'alibaba', 'qwen3-32b');
    expect(body.enable_thinking).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('turns requested reasoning off on a non-streaming call, with a WARN', () => {
    const reasoning = { effort: 'high' as const, budgetTokens: 2000 };
    const { body, warnings } = build(alibaba, 'alibaba', 'qwen3-32b', { reasoning });
    expect(body.enable_thinking).toBe(false);
    expect(body).not.toHaveProperty('thinking_budget');
    expect(warnings).toEqual(['dropped reasoning settings: the host thinks only in streaming calls']);
  });

  it('turns no thinking on for an effort without thinking (the host has no level), with a WARN', () => {
    const reasoning = { effort: 'low' as const, thinking: false };
    const { body, warnings } = build(alibaba, 'alibaba', 'qwen3-32b', { reasoning }, true);
    expect(body).not.toHaveProperty('enable_thinking');
    expect(warnings).toEqual(['dropped the effort: the host takes no effort level']);
  });

  it('asks for thinking on a streaming call, and says nothing when none was asked', () => {
    const streamed = build(alibaba, 'alibaba', 'qwen3-32b', { reasoning: { budgetTokens: 500 } }, true);
    expect(streamed.body).toMatchObject({ enable_thinking: true, thinking_budget: 500 });
    expect(build(alibaba, 'alibaba', 'qwen3-32b', {}, true).body).not.toHaveProperty('enable_thinking');
  });
});

describe('xAI reasoning models', () => {
  const effortFor = (model: string, reasoning: ReasoningRequest) => build(xai, 'xai', model, { reasoning });

  it('clamps grok-3-mini efforts to low | high', () => {
    const sent = (['minimal', 'low', 'medium', 'high'] as const).map(
      (effort) => effortFor('grok-3-mini', { effort }).body.reasoning_effort,
    );
    expect(sent).toEqual(['low', 'low', 'high', 'high']);
    expect(effortFor('grok-3-mini-fast', { effort: 'medium' }).warnings).toEqual([
      'changed the reasoning effort to a level the model takes',
    ]);
    expect(effortFor('grok-3-mini', { budgetTokens: 8000 }).body.reasoning_effort).toBe('high');
  });

  it('drops reasoning_effort with a WARN for models other than grok-3-mini', () => {
    for (const model of ['grok-4', 'grok-4-fast-reasoning', 'grok-code-fast-1', 'grok-3']) {
      const { body, warnings } = effortFor(model, { effort: 'high' });
      expect(body).not.toHaveProperty('reasoning_effort');
      expect(warnings).toEqual(['dropped reasoning_effort: the model does not take it']);
    }
  });

  it('drops the penalties (pass-through too) for reasoning models, with a WARN each; stop is cut at here, not sent', () => {
    const extra = {
      stopSequences: ['END'],
      providerOptions: { xai: { presence_penalty: 0.5, frequency_penalty: 0.2, seed: 1 } },
    };
    for (const model of ['grok-3-mini', 'grok-4-0709', 'grok-code-fast-1']) {
      const { body, warnings } = build(xai, 'xai', model, extra);
      expect(body).not.toHaveProperty('stop');
      expect(body).not.toHaveProperty('presence_penalty');
      expect(body).not.toHaveProperty('frequency_penalty');
      expect(body.seed).toBe(1);
      expect(warnings).toHaveLength(2);
    }
    const grok3 = build(xai, 'xai', 'grok-3', extra);
    expect(grok3.body).toMatchObject({ stop: ['END'], presence_penalty: 0.5, frequency_penalty: 0.2 });
    expect(grok3.warnings).toEqual([]);
  });
});

describe('OpenAI model quirks', () => {
  it('sends minimal as low to gpt-5.1 and later (medium to gpt-5.2-pro, its least), and minimal as is to gpt-5', () => {
    const minimal = { reasoning: { effort: 'minimal' as const } };
    expect(build(openaiQuirks, 'openai', 'gpt-5.1', minimal).body.reasoning_effort).toBe('low');
    expect(build(openaiQuirks, 'openai', 'gpt-5.2', minimal).body.reasoning_effort).toBe('low');
    expect(build(openaiQuirks, 'openai', 'gpt-5.2-pro', minimal).body.reasoning_effort).toBe('medium');
    expect(build(openaiQuirks, 'openai', 'gpt-5-mini', minimal).body.reasoning_effort).toBe('minimal');
    const high = build(openaiQuirks, 'openai', 'gpt-5.1', { reasoning: { effort: 'high' } });
    expect(high.body.reasoning_effort).toBe('high');
  });

  it('sends instructions as a leading user message to o1-mini and o1-preview', () => {
    for (const model of ['o1-mini', 'o1-mini-2024-09-12', 'o1-preview']) {
      const [first, second] = build(openaiQuirks, 'openai', model).body.messages as Array<{ role: string }>;
      expect(first).toEqual({ role: 'user', content: 'Be brief.' });
      expect(second).toEqual({ role: 'user', content: 'Hi' });
    }
    for (const model of ['o1', 'o1-2024-12-17', 'o1-pro', 'o3-mini', 'gpt-5']) {
      const [first] = build(openaiQuirks, 'openai', model).body.messages as Array<{ role: string }>;
      expect(first?.role).toBe('developer');
    }
    const [gpt4] = build(openaiQuirks, 'openai', 'gpt-4.1').body.messages as Array<{ role: string }>;
    expect(gpt4?.role).toBe('system');
  });
});

describe('reasoning off (effort none)', () => {
  const off = { reasoning: { effort: 'none' } } as const;

  it('reaches gpt-5.1 and later as reasoning_effort none, with no WARN', () => {
    for (const model of ['gpt-5.1', 'gpt-5.2-mini']) {
      const { body, warnings } = build(openaiQuirks, 'openai', model, off);
      expect(body.reasoning_effort).toBe('none');
      expect(warnings).toEqual([]);
    }
  });

  it('reaches a model without "none" as its least level (gpt-5 minimal, o3 low), with a WARN', () => {
    for (const [model, least] of [
      ['gpt-5', 'minimal'],
      ['gpt-5-mini', 'minimal'],
      ['o3', 'low'],
    ]) {
      const { body, warnings } = build(openaiQuirks, 'openai', model!, off);
      expect(body.reasoning_effort).toBe(least);
      expect(warnings).toEqual(['changed the reasoning effort to a level the model takes']);
    }
  });

  it('sends nothing to a model that does not reason, and enable_thinking false to a thinking host', () => {
    expect(build(openaiQuirks, 'openai', 'gpt-4.1', off)).toEqual({
      body: expect.not.objectContaining({ reasoning_effort: expect.anything() }),
      warnings: [],
    });
    const context = createTestContext({
      provider: 'alibaba',
      model: 'qwen3-32b',
      stream: true,
      capabilities: createCapabilityResolver(alibaba)('qwen3-32b'),
    });
    const request = {
      model: 'alibaba:qwen3-32b',
      transcript: [userText('Hi')],
      maxOutputTokens: 100,
      ...off,
    };
    const { body } = buildRequest(request, context, { quirks: alibaba, strictTools: false });
    expect(body.enable_thinking).toBe(false);
    expect(context.warnings).toEqual([]);
  });

  it('reaches gpt-oss on any Chat host as low, with a WARN: it cannot be off', () => {
    const offOn = (preset: 'groq' | 'together' | 'cerebras', model: string) => {
      const quirks = mergeQuirks(defaultQuirks, presets[preset].quirks);
      const context = createTestContext({
        provider: preset,
        model,
        capabilities: createCapabilityResolver(quirks)(model),
      });
      const request = {
        model: `${preset}:${model}`,
        transcript: [userText('Hi')],
        maxOutputTokens: 100,
        ...off,
      };
      const { body } = buildRequest(request, context, { quirks, strictTools: false });
      return [body.reasoning_effort, context.warnings.map((warning) => warning.message)];
    };
    for (const [preset, model] of [
      ['groq', 'openai/gpt-oss-120b'],
      ['together', 'openai/gpt-oss-120b'],
      ['cerebras', 'gpt-oss-120b'],
    ] as const)
      expect(offOn(preset, model)).toEqual([
        'low',
        ['changed the reasoning effort to a level the model takes'],
      ]);
  });
});

describe('the highest effort (xhigh)', () => {
  const xhigh = { reasoning: { effort: 'xhigh' } } as const;
  const changed = ['changed the reasoning effort to a level the model takes'];

  it('reaches gpt-5.1-codex-max, gpt-5.2 and later as reasoning_effort xhigh, with no WARN', () => {
    for (const model of ['gpt-5.1-codex-max', 'gpt-5.2', 'gpt-5.2-codex', 'gpt-5.2-pro', 'gpt-5.4-mini'])
      expect(build(openaiQuirks, 'openai', model, xhigh)).toEqual({
        body: expect.objectContaining({ reasoning_effort: 'xhigh' }),
        warnings: [],
      });
  });

  it('reaches a model without it as its highest level, high, with a WARN', () => {
    for (const model of ['gpt-5.1', 'gpt-5.1-codex', 'gpt-5', 'o3', 'gpt-5-pro'])
      expect(build(openaiQuirks, 'openai', model, xhigh)).toEqual({
        body: expect.objectContaining({ reasoning_effort: 'high' }),
        warnings: changed,
      });
    expect(build(xai, 'xai', 'grok-3-mini', xhigh)).toEqual({
      body: expect.objectContaining({ reasoning_effort: 'high' }),
      warnings: changed,
    });
    const groq = mergeQuirks(defaultQuirks, presets.groq.quirks);
    expect(build(groq, 'groq', 'openai/gpt-oss-120b', xhigh)).toEqual({
      body: expect.objectContaining({ reasoning_effort: 'high' }),
      warnings: changed,
    });
  });

  it('is a level a JSON host definition may list', () => {
    expect(
      parseQuirks({ reasoningEffortValues: { 'm-*': ['high', 'xhigh'] } }).reasoningEffortValues,
    ).toEqual({
      '*gpt-oss*': ['low', 'medium', 'high'],
      'm-*': ['high', 'xhigh'],
    });
  });
});

describe('effort and model quirks as data', () => {
  it('clamps to the lowest accepted level at or above, else the highest', () => {
    expect(clampEffort('minimal', ['none', 'low', 'medium', 'high'])).toBe('low');
    expect(clampEffort('high', ['minimal', 'low'])).toBe('low');
    expect(clampEffort('medium', undefined)).toBe('medium');
  });

  it('validates the new fields in JSON host definitions', () => {
    const quirks = parseQuirks({
      reasoningEffortModels: ['m-*'],
      reasoningEffortValues: { 'm-*': ['low', 'high'] },
      stopUnsupportedModels: ['m-*'],
      instructionsAsUserModels: ['old-*'],
      thinkingRequiresStream: true,
    });
    // Merged row by row with the default table (gpt-oss).
    expect(quirks.reasoningEffortValues).toEqual({
      '*gpt-oss*': ['low', 'medium', 'high'],
      'm-*': ['low', 'high'],
    });
    expect(() => parseQuirks({ reasoningEffortValues: { '*': ['extreme'] } })).toThrow(
      /reasoningEffortValues/,
    );
    expect(() => parseQuirks({ reasoningEffortValues: { '*': [] } })).toThrow(/reasoningEffortValues/);
  });
});

describe('a tool’s own strict', () => {
  const tool = {
    name: 'weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  };
  it('goes strict without the adapter option, opts out with false, and is not sent to a host without strict (WARN)', () => {
    const warnings: string[] = [];
    const warn = (message: string) => void warnings.push(message);
    expect(convertTools([{ ...tool, strict: true }], false, warn)[0]!.function.strict).toBe(true);
    expect(convertTools([{ ...tool, strict: false }], true, warn)[0]!.function.strict).toBeUndefined();
    expect(warnings).toEqual([]);
    const [sent] = convertTools([{ ...tool, strict: true }], false, warn, false);
    expect(sent!.function).toEqual({ name: 'weather', parameters: tool.inputSchema });
    expect(warnings).toEqual(['sent a tool without strict: the host does not take it']);
  });
});

describe('a host no effort row knows', () => {
  it('takes xhigh as high, with the WARN (only OpenAI’s newest models take xhigh); other levels as they are', () => {
    const generic = mergeQuirks(defaultQuirks, presets.groq.quirks);
    const xhigh = build(generic, 'groq', 'qwen/qwen3-32b', { reasoning: { effort: 'xhigh' } });
    expect(xhigh.body.reasoning_effort).toBe('high');
    expect(xhigh.warnings).toEqual(['changed the reasoning effort to a level the model takes']);
    const low = build(generic, 'groq', 'qwen/qwen3-32b', { reasoning: { effort: 'low' } });
    expect(low.body.reasoning_effort).toBe('low');
    expect(low.warnings).toEqual([]);
  });
});

describe('verbosity (GPT-5 only, OpenAI and Azure)', () => {
  it('is sent as the top-level verbosity to an OpenAI GPT-5 model', () => {
    const { body, warnings } = build(openaiQuirks, 'openai', 'gpt-5-mini', { verbosity: 'low' });
    expect(body.verbosity).toBe('low');
    expect(warnings).toEqual([]);
  });

  it.each([
    ['an OpenAI model before GPT-5', openaiQuirks, 'openai', 'gpt-4.1'],
    ['a host without it', xai, 'xai', 'grok-4'],
  ])('is dropped with a WARN for %s', (_, quirks, provider, model) => {
    const { body, warnings } = build(quirks, provider, model, { verbosity: 'high' });
    expect(body).not.toHaveProperty('verbosity');
    expect(warnings).toEqual(['dropped the verbosity: the host or model does not take it']);
  });

  it('a host defined in JSON may name the models that take it', () => {
    const quirks = parseQuirks({ baseURL: 'http://local.test/v1', verbosityModels: ['gpt-oss*'] });
    expect(build(quirks, 'local', 'gpt-oss-120b', { verbosity: 'medium' }).body.verbosity).toBe('medium');
  });
});
