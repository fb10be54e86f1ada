import { describe, expect, it } from 'vitest';
import { isRateLimitError, isServerError } from '../../core/errors/guards.ts';
import { presets } from '../openai-compatible/presets.ts';
import { defaultQuirks, mergeQuirks, openaiQuirks } from './quirks.ts';
import { convertUsage, mapFinishReason } from './response.ts';
import { createTestContext, feedResponse, feedStream, textOf, toolCallsOf } from './test-support.ts';

function completion(message: object, finish = 'stop', extra: object = {}) {
  return {
    id: 'chatcmpl-9',
    model: 'gpt-4.1',
    choices: [{ index: 0, message, finish_reason: finish }],
    ...extra,
  };
}

describe('mapFinishReason', () => {
  it('maps every known value and keeps unknown ones as other', () => {
    const table = {
      stop: 'completed',
      eos: 'completed',
      length: 'max-tokens',
      model_length: 'max-tokens',
      tool_calls: 'tool-call',
      function_call: 'tool-call',
      content_filter: 'content-filter',
      stop_sequence: 'stop-sequence',
      error: 'error',
      recitation: 'other',
    };
    for (const [raw, expected] of Object.entries(table))
      expect([raw, mapFinishReason(raw)]).toEqual([raw, expected]);
    expect(mapFinishReason('stop', true)).toBe('tool-call');
    expect(mapFinishReason(null)).toBe('other');
    expect(mapFinishReason(undefined, true)).toBe('other');
  });
});

describe('convertUsage', () => {
  it('a host reporting more reasoning than completion tokens counts it outside: output includes it', () => {
    expect(
      convertUsage({
        prompt_tokens: 10,
        completion_tokens: 5,
        completion_tokens_details: { reasoning_tokens: 20 },
      }),
    ).toEqual({ input: 10, cacheRead: 0, cacheWrite: 0, output: 25, reasoning: 20 });
  });
  it('keeps the audio parts of prompt and completion (priced apart), not the prediction counts (billed as output)', () => {
    // gpt-audio's documented shape: audio_tokens inside prompt_tokens and completion_tokens.
    const wire = {
      prompt_tokens: 120,
      completion_tokens: 90,
      prompt_tokens_details: { cached_tokens: 20, audio_tokens: 70 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 60,
        accepted_prediction_tokens: 4,
        rejected_prediction_tokens: 3,
      },
    };
    expect(convertUsage(wire)).toEqual({
      input: 100,
      cacheRead: 20,
      cacheWrite: 0,
      output: 90,
      reasoning: 0,
      audioInput: 70,
      audioOutput: 60,
    });
    // Never more audio than the bucket it is a part of.
    expect(
      convertUsage({ prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: { audio_tokens: 50 } }),
    ).toMatchObject({ input: 10, audioInput: 10 });
  });

  it('subtracts cached tokens so buckets are disjoint', () => {
    expect(
      convertUsage({
        prompt_tokens: 100,
        completion_tokens: 50,
        prompt_tokens_details: { cached_tokens: 80 },
        completion_tokens_details: { reasoning_tokens: 20 },
      }),
    ).toEqual({ input: 20, cacheRead: 80, cacheWrite: 0, output: 50, reasoning: 20 });
  });

  it('reads DeepSeek hit/miss counts and Moonshot top-level cached_tokens', () => {
    expect(
      convertUsage({ prompt_cache_hit_tokens: 30, prompt_cache_miss_tokens: 12, completion_tokens: 5 }),
    ).toEqual({
      input: 12,
      cacheRead: 30,
      cacheWrite: 0,
      output: 5,
      reasoning: 0,
    });
    expect(convertUsage({ prompt_tokens: 20, cached_tokens: 10, completion_tokens: 3 }).cacheRead).toBe(10);
  });

  it('adds reasoning to the output for hosts that count it apart (xAI)', () => {
    const usage = {
      prompt_tokens: 10,
      completion_tokens: 2,
      completion_tokens_details: { reasoning_tokens: 300 },
    };
    expect(convertUsage(usage, { reasoningInCompletion: false })).toMatchObject({
      output: 302,
      reasoning: 300,
    });
  });

  it('never goes negative or fractional on inconsistent data; cached tokens are at most the prompt they are part of', () => {
    expect(
      convertUsage({ prompt_tokens: 5, prompt_tokens_details: { cached_tokens: 9 }, completion_tokens: 1.6 }),
    ).toEqual({
      input: 0,
      cacheRead: 5,
      cacheWrite: 0,
      output: 2,
      reasoning: 0,
    });
  });
});

describe('parseResponse', () => {
  it('reads a refusal as a tagged text part and finishes content-filter', () => {
    const response = feedResponse(
      completion({ role: 'assistant', content: null, refusal: 'I cannot do that.' }),
      openaiQuirks,
    );
    expect(response.content).toEqual([
      { type: 'text', text: 'I cannot do that.', metadata: { 'openai.refusal': true } },
    ]);
    expect(response).toMatchObject({ finishReason: 'content-filter', rawFinishReason: 'stop' });
  });

  it('reads parallel tool calls with their inputs', () => {
    const call = (id: string, city: string) => ({
      id,
      type: 'function',
      function: { name: 'weather', arguments: JSON.stringify({ city }) },
    });
    const response = feedResponse(
      completion({ content: 'Both.', tool_calls: [call('c1', 'Paris'), call('c2', 'Oslo')] }, 'tool_calls'),
      openaiQuirks,
    );
    expect(textOf(response)).toBe('Both.');
    expect(toolCallsOf(response)).toEqual([
      { name: 'weather', input: { city: 'Paris' } },
      { name: 'weather', input: { city: 'Oslo' } },
    ]);
  });

  it('reads the legacy function_call as one tool call', () => {
    const response = feedResponse(
      completion({ function_call: { name: 'f', arguments: '{"a":1}' } }, 'function_call'),
      openaiQuirks,
    );
    expect(toolCallsOf(response)).toEqual([{ name: 'f', input: { a: 1 } }]);
    expect(response.finishReason).toBe('tool-call');
  });

  it('keeps Perplexity citations and search results as response metadata', () => {
    const context = createTestContext({ provider: 'perplexity' });
    const response = feedResponse(
      completion({ content: 'Paris [1]' }, 'stop', {
        citations: ['https://a.test'],
        search_results: [{ title: 'A', url: 'https://a.test', date: '2025-01-01' }],
      }),
      mergeQuirks(defaultQuirks, presets.perplexity.quirks),
      context,
    );
    expect(response.metadata).toEqual({
      'perplexity.citations': ['https://a.test'],
      'perplexity.search_results': [{ title: 'A', url: 'https://a.test', date: '2025-01-01' }],
    });
  });

  it('reads Groq usage from x_groq when the top-level usage is absent', () => {
    const result = feedStream(
      [
        JSON.stringify({
          id: 'c',
          model: 'm',
          choices: [{ delta: { content: 'x' }, finish_reason: 'stop' }],
          x_groq: { usage: { prompt_tokens: 7, completion_tokens: 2 } },
        }),
      ],
      defaultQuirks,
    );
    expect(result.response.usage).toMatchObject({ input: 7, output: 2 });
  });

  it('fails on an error object in the body, classified by its code', () => {
    let caught: unknown;
    try {
      feedResponse({ error: { message: 'slow down', code: 'rate_limit_exceeded' } }, openaiQuirks);
    } catch (error) {
      caught = error;
    }
    expect(isRateLimitError(caught)).toBe(true);
    expect(caught).toMatchObject({ status: undefined, providerCode: 'rate_limit_exceeded' });
  });

  it('fails a body that is not an object or has no choice as invalid_response', () => {
    for (const body of [null, [1, 2], 'text', { choices: [] }]) {
      let caught: unknown;
      try {
        feedResponse(body, openaiQuirks);
      } catch (error) {
        caught = error;
      }
      expect(isServerError(caught)).toBe(true);
      expect(caught).toMatchObject({ providerCode: 'invalid_response' });
    }
  });

  it('tolerates a choice without a message', () => {
    const response = feedResponse(
      { id: 'x', choices: [{ index: 0, finish_reason: 'length' }] },
      openaiQuirks,
    );
    expect(response).toMatchObject({ content: [], finishReason: 'max-tokens' });
  });
});

describe('the first choice is the one at index 0, wherever it is in the list', () => {
  const choice = (index: number, text: string) => ({
    index,
    message: { role: 'assistant', content: text },
    finish_reason: 'stop',
  });

  it('a whole body listing choice 1 first answers with choice 0', () => {
    const body = {
      id: 'chatcmpl-9',
      model: 'gpt-4.1',
      choices: [choice(1, 'CHOICE-ONE'), choice(0, 'choice-zero')],
    };
    expect(textOf(feedResponse(body, openaiQuirks))).toBe('choice-zero');
  });

  it('a chunk listing choices 1 and 0 adds only choice 0', () => {
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1' };
    const both = JSON.stringify({
      ...base,
      choices: [
        { index: 1, delta: { content: '[c1]' }, finish_reason: null },
        { index: 0, delta: { content: 'lo' }, finish_reason: null },
      ],
    });
    const start = JSON.stringify({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }],
    });
    const end = JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    const result = feedStream([start, both, end, '[DONE]'], openaiQuirks);
    expect(result.error).toBeUndefined();
    expect(textOf(result.response)).toBe('Hello');
  });

  it('a host numbering its one choice per chunk (Foundry Local, older TGI) is read whole', () => {
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const chunk = (index: number, delta: object, finish: string | null = null) =>
      JSON.stringify({ ...base, choices: [{ index, delta, finish_reason: finish }] });
    const result = feedStream(
      [
        chunk(0, { role: 'assistant', content: 'Wh' }),
        chunk(1, { content: 'ole' }),
        chunk(2, {}, 'stop'),
        '[DONE]',
      ],
      openaiQuirks,
    );
    expect(result.error).toBeUndefined();
    expect(textOf(result.response)).toBe('Whole');
    const body = { id: 'c', model: 'm', choices: [choice(1, 'only one')] };
    expect(textOf(feedResponse(body, openaiQuirks))).toBe('only one');
  });

  it('a choice without an index (hosts that send one choice) is the first', () => {
    const body = {
      id: 'chatcmpl-9',
      model: 'm',
      choices: [{ message: { role: 'assistant', content: 'only' }, finish_reason: 'stop' }],
    };
    expect(textOf(feedResponse(body, openaiQuirks))).toBe('only');
  });
});
