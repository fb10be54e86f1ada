/**
 * An Anthropic client's effort reaches the upstream as it was asked (the AI SDK's Anthropic provider
 * sends `providerOptions.anthropic.effort` as `output_config.effort`): before, an effort without
 * `thinking` reached no upstream at all, and adaptive thinking without an effort reached Opus 4.7
 * with `effort: "medium"` injected (the API's default is `high`) and Opus 4.6 as a fixed budget.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness, scriptedText } from './harness.ts';

let harness: GatewayHarness;
let anthropic: ReturnType<typeof createClients>['anthropic'];

beforeAll(async () => {
  harness = await startGatewayHarness();
  anthropic = createClients(harness.server.url).anthropic;
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

type Fields = Pick<Parameters<typeof anthropic.messages.create>[0], 'thinking' | 'output_config'>;

/** An Anthropic SDK `messages.stream` with `fields`, and the body the upstream got. */
async function create(model: string, fields: Fields): Promise<Record<string, unknown>> {
  harness.emulator.enqueue(scriptedText());
  const before = harness.emulator.requests.length;
  // Streamed: the SDK refuses a non-streaming call with this much room (it may take over 10 minutes).
  const message = await anthropic.messages
    .stream({ model, max_tokens: 32_000, messages: [{ role: 'user', content: 'Hi' }], ...fields })
    .finalMessage();
  expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello.' })]);
  expect(harness.emulator.requests.length).toBe(before + 1);
  return harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
}

describe('an Anthropic client’s output_config.effort without thinking', () => {
  it('reaches Opus 4.5 as output_config.effort, with no thinking', async () => {
    for (const effort of ['low', 'medium', 'high'] as const) {
      const body = await create('anthropic:claude-opus-4-5', { output_config: { effort } });
      expect(body.output_config).toEqual({ effort });
      expect(body.thinking).toBeUndefined();
    }
  });

  it('reaches Opus 4.6 and 4.7 the same way', async () => {
    for (const model of ['anthropic:claude-opus-4-6', 'anthropic:claude-opus-4-7']) {
      const body = await create(model, { output_config: { effort: 'low' } });
      expect([body.output_config, body.thinking]).toEqual([{ effort: 'low' }, undefined]);
    }
  });

  it('reaches an OpenAI Responses upstream (gpt-5.1) as reasoning.effort, its one effort', async () => {
    const body = await create('responses:gpt-5.1', { output_config: { effort: 'low' } });
    expect(body.reasoning).toEqual({ effort: 'low' });
  });
});

describe('an Anthropic client’s adaptive thinking without an effort', () => {
  it('reaches Opus 4.7 and 4.6 as adaptive thinking with no effort (the API default, high)', async () => {
    for (const model of ['anthropic:claude-opus-4-7', 'anthropic:claude-opus-4-6']) {
      const body = await create(model, { thinking: { type: 'adaptive' } });
      expect(body.thinking).toEqual({ type: 'adaptive' });
      expect(body.output_config).toBeUndefined();
    }
    expect(harness.logger.entries.map((entry) => entry.message)).not.toContain(
      'chose a thinking budget: the model takes no adaptive thinking',
    );
  });

  it('reaches a budget model (Sonnet 4.5) as high’s budget, with a WARN', async () => {
    const body = await create('up-anthropic', { thinking: { type: 'adaptive' } });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 16_384 });
    expect(harness.logger.entries).toContainEqual(
      expect.objectContaining({
        message: 'chose a thinking budget: the model takes no adaptive thinking',
        fields: expect.objectContaining({ sent: 16_384 }),
      }),
    );
  });
});

describe('an Anthropic client’s thinking budget with output_config.effort', () => {
  it('reaches Opus 4.5 with both (the effort was dropped before)', async () => {
    const body = await create('anthropic:claude-opus-4-5', {
      thinking: { type: 'enabled', budget_tokens: 4096 },
      output_config: { effort: 'low' },
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(body.output_config).toEqual({ effort: 'low' });
  });
});
