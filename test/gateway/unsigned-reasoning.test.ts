/**
 * Reasoning a host sends without a signature (DeepSeek's and Moonshot's `reasoning_content`) and
 * wants back on the next turn of a tool round trip: through an Anthropic, Responses or Gemini
 * client it must come back tagged with its provider, or the host's adapter drops it as foreign and
 * DeepSeek answers 400 "Missing `reasoning_content`" (the emulator enforces that rule). Found by
 * running Claude Code and Codex through the gateway with a DeepSeek upstream: turn 2 failed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayServer } from 'switchyard-ai/gateway';
import type { Emulator } from 'switchyard-ai/testing';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { startEmulatedGateway } from '../support/emulated.ts';

let emulator: Emulator;
let server: GatewayServer;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ emulator, server, close } = await startEmulatedGateway({
    adapters: { deepseek: { type: 'openai-compatible', preset: 'deepseek' } },
    apiKey: 'upstream-key',
    config: {
      models: {
        'deepseek:deepseek-reasoner': { aliases: ['up-deepseek'], capabilities: { reasoning: true } },
      },
    },
  }));
});
afterAll(() => close());

/** DeepSeek thinks (no signature) and calls `lookup`, then answers. */
function script(): void {
  emulator.enqueue({
    type: 'scripted',
    protocol: 'openai-chat',
    model: 'deepseek-reasoner',
    content: [
      { type: 'reasoning', text: 'I should look it up.' },
      { type: 'tool-call', id: 'call_01', name: 'lookup', input: { q: 'x' } },
    ],
  } as EmulatorScript);
  emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Found it.' }] } as EmulatorScript);
}

async function post(path: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(json)).toBe(200);
  return json;
}

/** The second upstream request's assistant message: its reasoning_content, as DeepSeek requires. */
const replayed = () =>
  (emulator.requests.at(-1)!.body as { messages: Array<Record<string, unknown>> }).messages.find(
    (message) => message.role === 'assistant',
  )?.reasoning_content;

const lookup = { name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } } } };

describe('unsigned reasoning comes back to its host through any client', () => {
  it('Anthropic client: the thinking block carries its provider back', async () => {
    script();
    const user = { role: 'user', content: 'Look x up.' };
    const first = await post('/v1/messages', {
      model: 'up-deepseek',
      max_tokens: 256,
      messages: [user],
      tools: [lookup],
    });
    const content = first.content as Array<Record<string, unknown>>;
    const call = content.find((block) => block.type === 'tool_use')!;
    await post('/v1/messages', {
      model: 'up-deepseek',
      max_tokens: 256,
      tools: [lookup],
      messages: [
        user,
        { role: 'assistant', content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'x is 42' }] },
      ],
    });
    expect(replayed()).toBe('I should look it up.');
  });

  it('Responses client (stateless): the reasoning item carries its provider back', async () => {
    script();
    const tools = [{ type: 'function', name: 'lookup', parameters: lookup.input_schema }];
    const input = [{ role: 'user', content: 'Look x up.' }];
    const first = await post('/v1/responses', {
      model: 'up-deepseek',
      input,
      tools,
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const output = first.output as Array<Record<string, unknown>>;
    const call = output.find((item) => item.type === 'function_call')!;
    await post('/v1/responses', {
      model: 'up-deepseek',
      tools,
      store: false,
      input: [
        ...input,
        ...output,
        { type: 'function_call_output', call_id: call.call_id, output: 'x is 42' },
      ],
    });
    expect(replayed()).toBe('I should look it up.');
  });

  /** A Chat client's two turns; `drop`: it sends the assistant message back without `reasoning_content`. */
  async function chatRoundTrip(drop: boolean): Promise<void> {
    script();
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: lookup.input_schema } }];
    const user = { role: 'user', content: 'Look x up.' };
    const first = await post('/v1/chat/completions', { model: 'up-deepseek', messages: [user], tools });
    const sent = (first.choices as Array<{ message: Record<string, unknown> }>)[0]!.message;
    const { reasoning_content: _dropped, ...withoutReasoning } = sent;
    const message = drop ? withoutReasoning : sent;
    const call = (message.tool_calls as Array<{ id: string }>)[0]!;
    await post('/v1/chat/completions', {
      model: 'up-deepseek',
      tools,
      messages: [user, message, { role: 'tool', tool_call_id: call.id, content: 'x is 42' }],
    });
  }

  it('Chat client: the assistant message sent back with its reasoning_content keeps it', async () => {
    await chatRoundTrip(false);
    expect(replayed()).toBe('I should look it up.');
  });

  it('Chat client that drops reasoning_content: the gateway puts the stored reasoning back', async () => {
    await chatRoundTrip(true);
    expect(replayed()).toBe('I should look it up.');
  });

  it('Gemini client: the thought part carries its provider back', async () => {
    script();
    const tools = [{ functionDeclarations: [{ name: 'lookup', parameters: { type: 'object' } }] }];
    const user = { role: 'user', parts: [{ text: 'Look x up.' }] };
    const first = await post('/v1beta/models/up-deepseek:generateContent', { contents: [user], tools });
    const model = (first.candidates as Array<{ content: Record<string, unknown> }>)[0]!.content;
    const call = (model.parts as Array<Record<string, Record<string, unknown>>>).find(
      (part) => part.functionCall,
    )!;
    await post('/v1beta/models/up-deepseek:generateContent', {
      tools,
      contents: [
        user,
        model,
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'lookup', id: call.functionCall!.id, response: { output: '42' } } },
          ],
        },
      ],
    });
    expect(replayed()).toBe('I should look it up.');
  });
});
