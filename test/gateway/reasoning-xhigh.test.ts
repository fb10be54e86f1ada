/**
 * A client asking for the highest effort, `xhigh` (Codex's `model_reasoning_effort = "xhigh"` sends
 * `reasoning: {effort: "xhigh", summary: "auto"}`), reaches the upstream as that provider's most:
 * before, the Chat and Responses decoders turned it into `high`, so gpt-5.1-codex-max never got it.
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

/** A Codex-shaped Responses request at `effort`, and the body the upstream got. */
async function codex(model: string, effort: string): Promise<Record<string, unknown>> {
  harness.emulator.enqueue(scriptedText());
  const response = await harness.post('/v1/responses', {
    model,
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
    reasoning: { effort, summary: 'auto' },
    stream: false,
  });
  expect(response.status).toBe(200);
  return harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
}

describe('a Responses client’s reasoning.effort xhigh (Codex)', () => {
  it('reaches an OpenAI Responses upstream gpt-5.1-codex-max as xhigh', async () => {
    // The harness's Responses adapter serves any `responses:` name.
    const body = await codex('responses:gpt-5.1-codex-max', 'xhigh');
    expect(body).toMatchObject({
      model: 'gpt-5.1-codex-max',
      reasoning: { effort: 'xhigh', summary: 'auto' },
    });
  });

  it('reaches a gpt-5.1 upstream, which has no xhigh, as high with a WARN', async () => {
    const body = await codex('responses:gpt-5.1', 'xhigh');
    expect(body).toMatchObject({ reasoning: { effort: 'high' } });
    expect(harness.logger.entries).toContainEqual(
      expect.objectContaining({
        message: 'changed the reasoning effort to a level the model takes',
        fields: expect.objectContaining({ requested: 'xhigh', sent: 'high' }),
      }),
    );
  });

  it('reaches an Anthropic upstream with a larger thinking budget than high', async () => {
    const budgetOf = (body: Record<string, unknown>) =>
      (body.thinking as { type: string; budget_tokens: number }).budget_tokens;
    const high = budgetOf(await codex('up-anthropic', 'high'));
    const xhigh = await codex('up-anthropic', 'xhigh');
    expect(xhigh.thinking).toMatchObject({ type: 'enabled' });
    expect(budgetOf(xhigh)).toBeGreaterThan(high);
    expect(budgetOf(xhigh)).toBeLessThan(xhigh.max_tokens as number);
  });
});

describe('a Chat client’s reasoning_effort xhigh', () => {
  it('reaches a gpt-5.2 Chat upstream as reasoning_effort xhigh', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await harness.post('/v1/chat/completions', {
      model: 'openai:gpt-5.2',
      messages: [{ role: 'user', content: 'Hi' }],
      reasoning_effort: 'xhigh',
    });
    expect(response.status).toBe(200);
    expect(harness.emulator.requests.at(-1)!.body).toMatchObject({
      model: 'gpt-5.2',
      reasoning_effort: 'xhigh',
    });
  });
});
