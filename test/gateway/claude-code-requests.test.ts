/**
 * What Claude Code 2.1 and the Anthropic SDK send that an Anthropic-shaped gateway must take
 * (helpers ran them through the gateway on six upstreams): ToolSearch answers with
 * `tool_reference` blocks in a tool result, which were a 400 (Claude Code sent the turn three
 * times, then fell back to declaring every tool in full); adaptive thinking at
 * `output_config.effort`, whose effort went nowhere (an OpenAI upstream got no `reasoning_effort`,
 * Gemini no budget); and the SDK's tool runner on message threads, whose `thread: continue` turn
 * (only the new tool result) was served as if it were the whole conversation — a 400 on every
 * upstream — and is now the 404 `thread_not_found` the SDK answers by sending the whole conversation.
 */
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

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

  it.each(['up-chat', 'up-anthropic'])(
    'the SDK’s tool runner on message threads completes through %s: a continued thread is refused, the SDK resends it whole',
    async (model) => {
      harness.emulator.clear();
      harness.emulator.enqueue({
        type: 'scripted',
        content: [{ type: 'tool-call', name: 'weather', input: { city: 'Oslo' } }],
      });
      harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'It is sunny.' }] });
      const sent = harness.emulator.requests.length;
      const client = createClients(harness.server.url, 'k').anthropic;
      const weather = betaZodTool({
        name: 'weather',
        description: 'The weather in a city.',
        inputSchema: z.object({ city: z.string() }),
        run: async ({ city }) => `sunny in ${city}`,
      });
      const final = await client.beta.messages.toolRunner({
        model,
        max_tokens: 500,
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
        tools: [weather],
      });
      expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'It is sunny.' })]);
      // Two upstream calls: the refused continuation never reached the upstream.
      expect(harness.emulator.requests.length - sent).toBe(2);
      expect(JSON.stringify(upstreamBody())).toContain('sunny in Oslo');
    },
  );

  it('a thread continuation is a 404 thread_not_found naming the field, never served as a whole conversation', async () => {
    const before = harness.emulator.requests.length;
    const response = await messages({
      model: 'up-chat',
      thread: { type: 'continue', previous_message_id: 'msg_1' },
      messages: [{ role: 'user', content: 'And now?' }],
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', details: { error_code: 'thread_not_found' } },
    });
    expect(harness.emulator.requests.length).toBe(before);
  });
});
