/**
 * A client whose session began directly with its provider, then pointed at the gateway, sends back
 * that provider's opaque values as the provider wrote them (not wrapped by the gateway): Anthropic
 * thinking signatures and redacted thinking, OpenAI encrypted reasoning with its item id, a Gemini
 * call's thought signature. Each reaches an adapter of that provider's type intact, and never
 * another provider.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
});
afterAll(async () => {
  await harness?.close();
});

const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
  (
    await fetch(`${harness.server.url}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    })
  ).status;
const sent = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;

const anthropicTurn = (model: string) => ({
  model,
  max_tokens: 4096,
  thinking: { type: 'enabled', budget_tokens: 1024 },
  messages: [
    { role: 'user', content: 'Weather?' },
    {
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: 'I need the tool.',
          signature: 'EqQBCkYIBRgCIkD-raw-anthropic-signature',
        },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy-raw-redacted' },
        { type: 'tool_use', id: 'toolu_01RAW', name: 'get_weather', input: {} },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01RAW', content: 'sunny' }] },
  ],
  tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
});

it('Anthropic client → Anthropic: its raw thinking signature and redacted thinking go back as sent, thinking stays on', async () => {
  expect(
    await post('/v1/messages', anthropicTurn('up-anthropic'), { 'anthropic-version': '2023-06-01' }),
  ).toBe(200);
  const body = sent() as { messages: Array<{ content: unknown[] }>; thinking?: unknown };
  expect(body.messages[1]!.content).toEqual([
    { type: 'thinking', thinking: 'I need the tool.', signature: 'EqQBCkYIBRgCIkD-raw-anthropic-signature' },
    { type: 'redacted_thinking', data: 'EmwKAhgBEgy-raw-redacted' },
    { type: 'tool_use', id: 'toolu_01RAW', name: 'get_weather', input: {} },
  ]);
  expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
});

it('Anthropic client → OpenAI Chat: the raw Anthropic signatures never reach another provider', async () => {
  expect(await post('/v1/messages', anthropicTurn('up-chat'), { 'anthropic-version': '2023-06-01' })).toBe(
    200,
  );
  expect(JSON.stringify(sent())).not.toContain('raw-anthropic-signature');
  expect(JSON.stringify(sent())).not.toContain('raw-redacted');
});

it('Responses client → Responses: its raw encrypted reasoning goes back with its item id', async () => {
  const status = await post('/v1/responses', {
    model: 'up-responses',
    store: false,
    input: [
      { role: 'user', content: 'Weather?' },
      { type: 'reasoning', id: 'rs_raw1', summary: [], encrypted_content: 'gAAAAB-raw-openai-encrypted' },
      { type: 'function_call', call_id: 'call_RAW', name: 'get_weather', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_RAW', output: 'sunny' },
    ],
    tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }],
  });
  expect(status).toBe(200);
  expect((sent() as { input: unknown[] }).input[1]).toEqual({
    type: 'reasoning',
    id: 'rs_raw1',
    summary: [],
    encrypted_content: 'gAAAAB-raw-openai-encrypted',
  });
});

it('Gemini client → Gemini 3: a call’s raw thought signature goes back, not the bypass value', async () => {
  const status = await post('/v1beta/models/up-gemini3:generateContent', {
    contents: [
      { role: 'user', parts: [{ text: 'Weather?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: {} }, thoughtSignature: 'CiQB-raw-gemini-signature' },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] },
    ],
    tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object' } }] }],
  });
  expect(status).toBe(200);
  const contents = (sent() as { contents: Array<{ parts: Array<{ thoughtSignature?: string }> }> }).contents;
  expect(contents[1]!.parts[0]!.thoughtSignature).toBe('CiQB-raw-gemini-signature');
});
