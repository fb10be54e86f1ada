/**
 * An Anthropic client's `search_result` blocks (RAG results, in a user turn or a tool result) were
 * refused with a 400. A Claude upstream now gets each block as sent (Claude cites it); another
 * upstream reads it written out as text: its title, source and text, nothing left out.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { anthropicClient, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
});
afterAll(() => harness.close());

const result = {
  type: 'search_result',
  source: 'https://example.com/a',
  title: 'Page A',
  content: [
    { type: 'text', text: 'First finding.' },
    { type: 'text', text: 'Second finding.' },
  ],
  citations: { enabled: true },
};
const rendered = 'Search result: Page A\nSource: https://example.com/a\n\nFirst finding.\n\nSecond finding.';

const inUserTurn = [{ role: 'user', content: [result, { type: 'text', text: 'Answer from the result.' }] }];
const inToolResult = [
  { role: 'user', content: 'Search.' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [result] }] },
];

async function send(model: string, messages: unknown[]): Promise<Record<string, unknown>> {
  const response = await harness.post(
    '/v1/messages',
    {
      model,
      max_tokens: 100,
      tools: [{ name: 'search', input_schema: { type: 'object' } }],
      messages,
    },
    anthropicClient,
  );
  expect(response.status, await response.text()).toBe(200);
  return harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
}

it('Anthropic upstream: the block in a user turn goes as sent', async () => {
  const body = (await send('up-anthropic', inUserTurn)) as { messages: Array<{ content: unknown[] }> };
  expect(body.messages[0]!.content[0]).toEqual(result);
});

it('Anthropic upstream: the block in a tool_result goes as sent', async () => {
  const body = (await send('up-anthropic', inToolResult)) as {
    messages: Array<{ content: Array<{ content?: unknown }> }>;
  };
  expect(body.messages[2]!.content[0]!.content).toEqual([result]);
});

it('Chat upstream: the block is its text, title and source first', async () => {
  const body = (await send('up-chat', inUserTurn)) as { messages: Array<{ content: unknown }> };
  expect(JSON.stringify(body.messages[0]!.content)).toContain(JSON.stringify(rendered).slice(1, -1));
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
  const tool = (await send('up-chat', inToolResult)) as {
    messages: Array<{ role: string; content: unknown }>;
  };
  const output = tool.messages.find((message) => message.role === 'tool')!;
  expect(JSON.stringify(output.content)).toContain(JSON.stringify(rendered).slice(1, -1));
});

it('Gemini upstream: the block is its text', async () => {
  const body = (await send('up-gemini', inUserTurn)) as { contents: Array<{ parts: unknown[] }> };
  expect(body.contents[0]!.parts[0]).toEqual({ text: rendered });
});

it('a search_result without a source is a 400 naming it', async () => {
  const { source: _source, ...unsourced } = result;
  const response = await harness.post(
    '/v1/messages',
    { model: 'up-anthropic', max_tokens: 100, messages: [{ role: 'user', content: [unsourced] }] },
    anthropicClient,
  );
  expect(response.status).toBe(400);
  expect(await response.text()).toContain('messages.0.content.0.source');
});
