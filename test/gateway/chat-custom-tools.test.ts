/**
 * Chat Completions `custom` (freeform) tools through the gateway, as for Responses clients: the
 * tool is offered to any upstream (to Anthropic as a function of one string `input` described with
 * the grammar), and the call comes back as a `tool_calls` entry of type `custom` whose
 * `custom.input` is the text — whole and streamed, assembled by the official SDK's own stream
 * accumulator. Before, a custom tool was a 400.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { createClients, type GatewayHarness, startGatewayHarness, upstreams } from './harness.ts';

let harness: GatewayHarness;
let client: OpenAI;
beforeAll(async () => {
  harness = await startGatewayHarness();
  client = createClients(harness.server.url, 'k').openai;
});
beforeEach(() => harness.emulator.clear());
afterAll(() => harness.close());

const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi "there"\n*** End Patch';
const tools = [
  {
    type: 'custom',
    custom: {
      name: 'apply_patch',
      description: 'Edit files.',
      format: { type: 'grammar', grammar: { syntax: 'lark', definition: 'start: /.+/s' } },
    },
  },
] as OpenAI.Chat.ChatCompletionTool[];
const model = upstreams['anthropic-messages'].alias;
const callsPatch = (): EmulatorScript =>
  ({
    type: 'scripted',
    content: [{ type: 'tool-call', id: 'toolu_01P', name: 'apply_patch', input: { input: patch } }],
    usage: { input: 9, output: 4 },
  }) as EmulatorScript;
const lastBody = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;

describe('Chat custom (freeform) tools through the gateway', () => {
  it('offered upstream as a function of one string input; the call comes back of type custom', async () => {
    harness.emulator.enqueue(callsPatch());
    const completion = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Add a.txt.' }],
      tools,
      tool_choice: { type: 'custom', custom: { name: 'apply_patch' } },
    });
    expect((lastBody().tools as unknown[])[0]).toMatchObject({
      name: 'apply_patch',
      input_schema: { required: ['input'], properties: { input: { type: 'string' } } },
    });
    expect(lastBody().tool_choice).toEqual({ type: 'tool', name: 'apply_patch' });
    expect(completion.choices[0]!.message.tool_calls).toEqual([
      { id: expect.any(String), type: 'custom', custom: { name: 'apply_patch', input: patch } },
    ]);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('streamed: the SDK’s accumulator assembles the custom call, with no function arguments', async () => {
    harness.emulator.enqueue(callsPatch());
    const stream = client.chat.completions.stream({
      model,
      messages: [{ role: 'user', content: 'Add a.txt.' }],
      tools,
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls).toEqual([
      expect.objectContaining({ type: 'custom', custom: { name: 'apply_patch', input: patch } }),
    ]);
  });

  it('a custom call and its result in the history reach the upstream as the same tool call and result', async () => {
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Done.' }],
    } as EmulatorScript);
    await client.chat.completions.create({
      model,
      tools,
      messages: [
        { role: 'user', content: 'Add a.txt.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_C1', type: 'custom', custom: { name: 'apply_patch', input: patch } }],
        },
        { role: 'tool', tool_call_id: 'call_C1', content: 'Done.' },
      ],
    });
    const messages = lastBody().messages as Array<{ role: string; content: unknown }>;
    expect(messages[1]!.content).toEqual([
      expect.objectContaining({ type: 'tool_use', name: 'apply_patch', input: { input: patch } }),
    ]);
    expect(messages[2]!.content).toEqual([
      expect.objectContaining({ type: 'tool_result', content: 'Done.' }),
    ]);
  });

  it('a grammar of another syntax is a 400 naming it', async () => {
    const bad = [
      {
        type: 'custom',
        custom: { name: 'x', format: { type: 'grammar', grammar: { syntax: 'pcre', definition: 'a' } } },
      },
    ] as unknown as OpenAI.Chat.ChatCompletionTool[];
    const error = await client.chat.completions
      .create({ model, messages: [{ role: 'user', content: 'x' }], tools: bad })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('tools.0.custom.format.grammar.syntax');
  });
});
