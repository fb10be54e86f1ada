/**
 * A client turning reasoning off reaches the upstream as that provider's "off": a Gemini client's
 * `thinkingBudget: 0` and an Anthropic client's `thinking: {type: 'disabled'}` were dropped as no
 * setting, so a model that thinks by default (Gemini 2.5 Flash, gpt-5.1) thought anyway.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const generationConfigOf = (body: unknown) =>
  (body as { generationConfig?: Record<string, unknown> }).generationConfig;

describe('a Gemini client’s thinkingBudget: 0', () => {
  const generate = (model: string) =>
    harness.post(`/v1beta/models/${model}:generateContent`, {
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      generationConfig: { thinkingConfig: { thinkingBudget: 0 } },
    });

  it('reaches a Gemini 2.5 Flash upstream as thinkingBudget: 0 (its default is to think)', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await generate('up-gemini');
    expect(response.status).toBe(200);
    expect(generationConfigOf(harness.emulator.requests.at(-1)!.body)?.thinkingConfig).toEqual({
      thinkingBudget: 0,
    });
  });

  it('reaches a Gemini 3 Pro upstream, which cannot stop thinking, as its lowest level', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await generate('up-gemini3');
    expect(response.status).toBe(200);
    expect(generationConfigOf(harness.emulator.requests.at(-1)!.body)?.thinkingConfig).toEqual({
      thinkingLevel: 'low',
    });
  });

  it('reaches a gpt-5 Chat upstream, which has no "none", as reasoning_effort minimal', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await generate('up-chat');
    expect(response.status).toBe(200);
    expect(harness.emulator.requests.at(-1)!.body).toMatchObject({ reasoning_effort: 'minimal' });
  });
});

describe('an Anthropic client’s thinking: {type: "disabled"}', () => {
  const message = (model: string) =>
    JSON.stringify({
      model,
      max_tokens: 100,
      thinking: { type: 'disabled' },
      messages: [{ role: 'user', content: 'Hi' }],
    });

  it('reaches a gpt-5.1 Chat upstream as reasoning_effort: none', async () => {
    // The harness's Chat adapter serves any `openai:` name.
    harness.emulator.enqueue(scriptedText());
    const response = await harness.post('/v1/messages', message('openai:gpt-5.1'), {
      'anthropic-version': '2023-06-01',
    });
    expect(response.status).toBe(200);
    expect(harness.emulator.requests.at(-1)!.body).toMatchObject({
      model: 'gpt-5.1',
      reasoning_effort: 'none',
    });
  });

  it('reaches a Gemini 2.5 Flash upstream as thinkingBudget: 0', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await harness.post('/v1/messages', message('up-gemini'), {
      'anthropic-version': '2023-06-01',
    });
    expect(response.status).toBe(200);
    expect(generationConfigOf(harness.emulator.requests.at(-1)!.body)?.thinkingConfig).toEqual({
      thinkingBudget: 0,
    });
  });

  it('reaches an Anthropic upstream without thinking (off is its default)', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await harness.post('/v1/messages', message('up-anthropic'), {
      'anthropic-version': '2023-06-01',
    });
    expect(response.status).toBe(200);
    expect(harness.emulator.requests.at(-1)!.body).not.toHaveProperty('thinking');
  });
});

describe('an Anthropic client’s thinking: {type: "disabled"} with output_config.effort', () => {
  const message = (model: string) =>
    JSON.stringify({
      model,
      max_tokens: 100,
      thinking: { type: 'disabled' },
      output_config: { effort: 'low' },
      messages: [{ role: 'user', content: 'Hi' }],
    });
  const leftOut = (from: number) =>
    harness.logger.entries
      .slice(from)
      .filter((entry) => entry.message === 'gateway: part of the request was left out')
      .flatMap((entry) => entry.fields.details as string[]);

  it('reaches an Opus 4.5 upstream as that effort without thinking (the effort was lost before)', async () => {
    harness.emulator.enqueue(scriptedText());
    const from = harness.logger.entries.length;
    const response = await harness.post('/v1/messages', message('anthropic:claude-opus-4-5'), {
      'anthropic-version': '2023-06-01',
    });
    expect(response.status).toBe(200);
    const body = harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
    expect(body.output_config).toEqual({ effort: 'low' });
    expect(body).not.toHaveProperty('thinking');
    expect(leftOut(from)).toEqual([]);
  });

  it('reaches a gpt-5.1 Chat upstream with reasoning off, and a WARN naming the effort it could not honour', async () => {
    harness.emulator.enqueue(scriptedText());
    const from = harness.logger.entries.length;
    const response = await harness.post('/v1/messages', message('openai:gpt-5.1'), {
      'anthropic-version': '2023-06-01',
    });
    expect(response.status).toBe(200);
    expect(harness.emulator.requests.at(-1)!.body).toMatchObject({ reasoning_effort: 'none' });
    expect(leftOut(from)).toEqual([
      expect.stringMatching(/^output_config\.effort: effort 'low' is not honoured \(thinking is disabled/),
    ]);
  });
});
