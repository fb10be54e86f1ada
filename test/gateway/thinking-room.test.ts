/**
 * Reasoning with a small output cap on an Anthropic upstream (budget model: claude-sonnet-4-5, whose
 * smallest `budget_tokens` is 1,024 and must be below `max_tokens`). An effort — a Responses or Chat
 * client's `reasoning.effort: low` with a 300-token cap, which OpenAI serves — is sent without
 * thinking, with a WARN; before, it was a 400. An explicit budget that cannot fit (a Gemini client's
 * `thinkingBudget: 1024` with `maxOutputTokens: 300`) stays the refusal, naming the client's field.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClients, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
  harness.logger.entries.length = 0;
});
afterAll(async () => {
  await harness?.close();
});

const ignored = () =>
  harness.logger.entries.filter((entry) => entry.message === 'ignored a reasoning request');

describe('an effort with no room for Anthropic’s smallest thinking budget', () => {
  it('a Responses client’s effort low with max_output_tokens 300: answered without thinking, with a WARN', async () => {
    harness.emulator.enqueue(scriptedText('short answer'));
    const response = await createClients(harness.server.url).openai.responses.create({
      model: 'up-anthropic',
      input: 'Hi',
      reasoning: { effort: 'low' },
      max_output_tokens: 300,
    });
    expect(response.output_text).toBe('short answer');
    const body = harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
    expect(body).toMatchObject({ max_tokens: 300 });
    expect(body).not.toHaveProperty('thinking');
    expect(ignored()).toMatchObject([
      { fields: { effort: 'low', reason: expect.stringContaining('maxOutputTokens 300 leaves no room') } },
    ]);
  });

  it('a Chat client’s reasoning_effort high with max_completion_tokens 300, streamed: the same', async () => {
    harness.emulator.enqueue(scriptedText('streamed answer'));
    const stream = await createClients(harness.server.url).openai.chat.completions.create({
      model: 'up-anthropic',
      messages: [{ role: 'user', content: 'Hi' }],
      reasoning_effort: 'high',
      max_completion_tokens: 300,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('streamed answer');
    expect(harness.emulator.requests.at(-1)!.body).not.toHaveProperty('thinking');
    expect(ignored()).toHaveLength(1);
  });

  it('with room (max_output_tokens 2000) the effort is sent as a budget below it', async () => {
    harness.emulator.enqueue(scriptedText());
    await createClients(harness.server.url).openai.responses.create({
      model: 'up-anthropic',
      input: 'Hi',
      reasoning: { effort: 'low' },
      max_output_tokens: 2000,
    });
    expect(harness.emulator.requests.at(-1)!.body).toMatchObject({
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1500 },
    });
    expect(ignored()).toEqual([]);
  });
});

describe('an explicit budget with no room', () => {
  it('a Gemini client’s thinkingBudget 1024 with maxOutputTokens 300: a 400 naming its field, nothing sent', async () => {
    const from = harness.emulator.requests.length;
    const response = await harness.post('/v1beta/models/up-anthropic:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      generationConfig: { maxOutputTokens: 300, thinkingConfig: { thinkingBudget: 1024 } },
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { status: string; message: string } };
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('needs generationConfig.maxOutputTokens above 1024');
    expect(harness.emulator.requests.length).toBe(from);
  });
});
