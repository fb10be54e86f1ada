/**
 * Usage a provider did not report is estimated with the adapter's own estimator, counted exactly
 * up to `usageEstimateExactCharacters` and extrapolated past them (`estimateByCounter`'s
 * `exactCharacters`), so an exact tokenizer's time is bounded whatever the prompt's size; the usage
 * stays marked as estimated. Observed with a counter that records what it was handed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenEstimateInput } from '../../core/adapter.ts';
import type { Part, Transcript } from '../../core/transcript.ts';
import { userText } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { estimateInputTokens as estimateOpenAI } from '../openai-chat/tokens.ts';
import { createHttpAdapter } from './http-adapter.ts';
import { createTestDefinition } from './test-provider.ts';
import { type CharacterRates, estimateByCounter } from './token-estimate.ts';
import { usageEstimateExactCharacters } from './usage-fallback.ts';

const rates: CharacterRates = {
  charactersPerToken: 4,
  perRequest: 3,
  perMessage: 4,
  perToolPart: 4,
  perTool: 4,
  image: 0,
  otherMedia: 0,
  file: 0,
};

/** `count` texts of `size` characters (`word ` repeated), with tool calls whose inputs are JSON. */
function body(count: number, size: number): Transcript {
  const parts: Part[] = [];
  for (let index = 0; index < count; index++) {
    parts.push({ type: 'text', text: 'word '.repeat(size / 5) });
    if (index % 10 === 0)
      parts.push({
        type: 'tool-call',
        id: `call_${index}` as never,
        name: 'look',
        input: { q: 'x'.repeat(40) },
      });
  }
  return [{ kind: 'user', parts }];
}

/** A counter of one token a character that records how many characters it was handed. */
function recordingCounter() {
  const seen = { characters: 0 };
  return { seen, count: (text: string) => ((seen.characters += text.length), text.length) };
}

describe('estimateByCounter with exactCharacters', () => {
  it('counts at most that many characters (to a word break) and extrapolates the rest', () => {
    const transcript = body(1_000, 1_000);
    const whole = recordingCounter();
    const exact = estimateByCounter({ transcript }, rates, whole.count);
    const sampled = recordingCounter();
    const estimate = estimateByCounter({ transcript, exactCharacters: 10_000 }, rates, sampled.count);
    expect(whole.seen.characters).toBeGreaterThan(1_000_000);
    expect(sampled.seen.characters).toBeGreaterThanOrEqual(10_000);
    expect(sampled.seen.characters).toBeLessThanOrEqual(10_000 + 4_096);
    // One token a character: the rate measured on the sample is the whole's.
    expect(estimate).toBe(exact);
  });

  it('a body within the sample is counted whole and exactly', () => {
    const transcript = body(5, 1_000);
    const { seen, count } = recordingCounter();
    const estimate = estimateByCounter({ transcript, exactCharacters: 100_000 }, rates, count);
    expect(estimate).toBe(estimateByCounter({ transcript }, rates, (text) => text.length));
    expect(seen.characters).toBeLessThan(100_000);
  });

  it('nothing counted (a sample of 0): the rest at the rates’ characters per token', () => {
    const transcript: Transcript = [userText('a'.repeat(4_000))];
    const { seen, count } = recordingCounter();
    expect(estimateByCounter({ transcript, exactCharacters: 0 }, rates, count)).toBe(1_000 + 3 + 4);
    expect(seen.characters).toBe(0);
  });

  it('the OpenAI tokenizer over a sample of a 2 MiB prompt: within 1% of counting all of it', () => {
    const transcript = body(2_000, 1_000);
    const exact = estimateOpenAI({ transcript, model: 'gpt-4.1' });
    const sampled = estimateOpenAI({
      transcript,
      model: 'gpt-4.1',
      exactCharacters: usageEstimateExactCharacters,
    });
    expect(Math.abs(sampled - exact) / exact).toBeLessThan(0.01);
  });
});

describe('missing usage is estimated with the sample bound', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('the adapter’s estimator is asked for an exact count of at most usageEstimateExactCharacters; the usage is marked estimated', async () => {
    const asked: TokenEstimateInput[] = [];
    const definition = createTestDefinition();
    const adapter = createHttpAdapter(
      {
        ...definition,
        estimateInputTokens: (input) => (asked.push(input), definition.estimateInputTokens(input)),
      },
      { baseURL: emulator.url, apiKey: 'sk-test-usage', maxRetries: 0 },
    );
    emulator.enqueue({
      type: 'json',
      status: 200,
      body: { text: 'no usage here' },
      enforce: false,
      allowNoAuth: true,
    });
    const response = await adapter.complete({
      model: 'test:model',
      transcript: [userText('Hello')],
      maxOutputTokens: 10,
    });
    await adapter.close();
    expect(response.metadata).toMatchObject({ 'switchyard.usage_estimated': true });
    expect(asked.at(-1)).toMatchObject({ exactCharacters: usageEstimateExactCharacters });
    expect(asked.at(-1)?.stopAbove).toBeUndefined();
  });
});
