/**
 * What Claude Code 2.1 sends that an Anthropic-shaped gateway must take (a helper ran it through
 * the gateway on six upstreams): ToolSearch answers with `tool_reference` blocks in a tool result,
 * which were a 400 (Claude Code sent the turn three times, then fell back to declaring every tool
 * in full); and adaptive thinking at `output_config.effort`, whose effort went nowhere (an OpenAI
 * upstream got no `reasoning_effort`, Gemini no budget).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'OK.' }] });
});
afterAll(() => harness.close());

const messages = (body: Record<string, unknown>) =>
  fetch(`${harness.server.url}/v1/messages`, {
    method: 'POST',
    body: JSON.stringify({ max_tokens: 256, ...body }),
    headers: { 'content-type': 'application/json' },
  });
const upstreamBody = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;

describe('Claude Code’s requests', () => {
  it('a ToolSearch result of tool_reference blocks is taken, each as the text that the tool is loaded', async () => {
    const response = await messages({
      model: 'up-chat',
      tools: [{ name: 'ToolSearch', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'Search the web.' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'select:WebSearch' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [
                { type: 'tool_reference', tool_name: 'WebSearch' },
                { type: 'tool_reference', tool_name: 'WebFetch' },
              ],
            },
          ],
        },
      ],
    });
    expect(response.status).toBe(200);
    const sent = JSON.stringify(upstreamBody().messages);
    expect(sent).toContain('Tool loaded: WebSearch');
    expect(sent).toContain('Tool loaded: WebFetch');
  });

  it.each([
    ['up-chat', (body: Record<string, unknown>) => body.reasoning_effort, 'high'],
    [
      'up-anthropic',
      (body: Record<string, unknown>) => (body.thinking as { budget_tokens?: number }).budget_tokens,
      16_384,
    ],
  ])(
    'adaptive thinking at output_config.effort high reaches %s as that effort',
    async (model, read, expected) => {
      const response = await messages({
        model,
        max_tokens: 32_000,
        thinking: { type: 'adaptive' },
        output_config: { effort: 'high' },
        messages: [{ role: 'user', content: 'Think.' }],
      });
      expect(response.status).toBe(200);
      expect(read(upstreamBody())).toBe(expected);
    },
  );
});
