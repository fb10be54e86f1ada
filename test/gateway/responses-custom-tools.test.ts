/**
 * Responses `custom` (freeform) tools through the gateway. Codex declares `apply_patch` as one for
 * the GPT-5 models (`"apply_patch_tool_type": "freeform"` in its model catalog): the model writes the
 * patch as raw text, held to a Lark grammar. Before, the gateway left every custom tool out with a
 * warning, so a Codex pointed at another provider had no way to edit a file, and a history holding
 * a `custom_tool_call` was refused (400). Now the tool is offered to every upstream — to OpenAI as
 * the same custom tool, to the others as a function of one string `input` described with the
 * grammar — and the upstream's call comes back to the client as a `custom_tool_call` whose `input`
 * is the text, whole and streamed, through the official `openai` SDK.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { safeToolName } from '../../src/core/tool-names.ts';
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

const grammar = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\n';
const patch = '*** Begin Patch\n*** Add File: hello.txt\n+hello "world" \\ done\n*** End Patch';
const tools = [
  { type: 'function', name: 'shell', parameters: { type: 'object' }, strict: false },
  {
    type: 'custom',
    name: 'apply_patch',
    description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool.',
    format: { type: 'grammar', syntax: 'lark', definition: grammar },
  },
] as OpenAI.Responses.Tool[];

/** The upstream calls apply_patch with the patch as the `input` string. */
const callsPatch = (id = 'toolu_01PATCH'): EmulatorScript =>
  ({
    type: 'scripted',
    content: [{ type: 'tool-call', id, name: 'apply_patch', input: { input: patch } }],
    usage: { input: 9, output: 4 },
  }) as EmulatorScript;

/** The upstream answers the next request with `text`. */
const answers = (text: string) =>
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text }] } as EmulatorScript);
const lastBody = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;

describe('Responses custom (freeform) tools through the gateway', () => {
  it('an Anthropic upstream gets a function of one string `input` described with the grammar; the call comes back as a custom_tool_call', async () => {
    harness.emulator.enqueue(callsPatch());
    const response = await client.responses.create({
      model: upstreams['anthropic-messages'].alias,
      input: 'Add hello.txt.',
      tools,
    });
    const offered = (lastBody().tools as Array<Record<string, unknown>>)[1]!;
    expect(offered).toMatchObject({
      name: 'apply_patch',
      description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool.',
      input_schema: { type: 'object', required: ['input'], properties: { input: { type: 'string' } } },
    });
    expect(JSON.stringify(offered)).toContain(JSON.stringify(grammar).slice(1, -1));
    expect(response.output).toEqual([
      expect.objectContaining({
        type: 'custom_tool_call',
        call_id: expect.any(String),
        name: 'apply_patch',
        input: patch,
      }),
    ]);
  });

  it('streamed: output_item.added, custom_tool_call_input.delta and .done carry the text, and the SDK assembles it', async () => {
    harness.emulator.enqueue(callsPatch());
    const stream = client.responses.stream({
      model: upstreams['anthropic-messages'].alias,
      input: 'Add hello.txt.',
      tools,
    });
    const events: Array<{ type: string; [key: string]: unknown }> = [];
    for await (const event of stream) events.push(event as never);
    const final = await stream.finalResponse();
    const types = events.map((event) => event.type).filter((type) => /output_item|custom_tool/.test(type));
    expect(types).toEqual([
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
    ]);
    expect(events.find((event) => event.type === 'response.output_item.added')!.item).toMatchObject({
      type: 'custom_tool_call',
      name: 'apply_patch',
      input: '',
    });
    expect(events.some((event) => event.type === 'response.function_call_arguments.delta')).toBe(false);
    expect(final.output).toEqual([
      expect.objectContaining({ type: 'custom_tool_call', name: 'apply_patch', input: patch }),
    ]);
  });

  it('the call and its output sent back reach a Chat upstream as the same tool call and result', async () => {
    answers('Done.');
    await client.responses.create({
      model: upstreams['openai-chat'].alias,
      tools,
      input: [
        { role: 'user', content: 'Add hello.txt.' },
        { type: 'custom_tool_call', call_id: 'call_PATCH1', name: 'apply_patch', input: patch },
        { type: 'custom_tool_call_output', call_id: 'call_PATCH1', output: 'Success. Updated hello.txt' },
      ] as OpenAI.Responses.ResponseInput,
    });
    const messages = lastBody().messages as Array<Record<string, unknown>>;
    expect(messages.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [
        {
          id: 'call_PATCH1',
          type: 'function',
          function: { name: 'apply_patch', arguments: JSON.stringify({ input: patch }) },
        },
      ],
    });
    expect(messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_PATCH1',
      content: 'Success. Updated hello.txt',
    });
  });

  it('an OpenAI Responses upstream gets the custom tool itself, and the history as custom items', async () => {
    harness.emulator.enqueue(callsPatch('call_PATCH2'));
    const first = await client.responses.create({
      model: upstreams['openai-responses'].alias,
      input: 'Add hello.txt.',
      tools,
      tool_choice: { type: 'custom', name: 'apply_patch' },
    });
    expect((lastBody().tools as unknown[])[1]).toEqual({
      type: 'custom',
      name: 'apply_patch',
      description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool.',
      format: { type: 'grammar', syntax: 'lark', definition: grammar },
    });
    expect(lastBody().tool_choice).toEqual({ type: 'custom', name: 'apply_patch' });
    const call = first.output.find((item) => item.type === 'custom_tool_call')!;
    expect(call).toMatchObject({ name: 'apply_patch', input: patch });

    answers('Done.');
    await client.responses.create({
      model: upstreams['openai-responses'].alias,
      tools,
      store: false,
      input: [
        { role: 'user', content: 'Add hello.txt.' },
        { type: 'custom_tool_call', call_id: 'call_PATCH2', name: 'apply_patch', input: patch },
        { type: 'custom_tool_call_output', call_id: 'call_PATCH2', output: 'Success.' },
      ] as OpenAI.Responses.ResponseInput,
    });
    const input = lastBody().input as Array<Record<string, unknown>>;
    expect(input.slice(-2)).toEqual([
      { type: 'custom_tool_call', call_id: 'call_PATCH2', name: 'apply_patch', input: patch },
      { type: 'custom_tool_call_output', call_id: 'call_PATCH2', output: 'Success.' },
    ]);
  });

  it('tool_choice naming the custom tool forces it on another upstream', async () => {
    harness.emulator.enqueue(callsPatch());
    await client.responses.create({
      model: upstreams['anthropic-messages'].alias,
      input: 'Add hello.txt.',
      tools,
      tool_choice: { type: 'custom', name: 'apply_patch' },
    });
    expect(lastBody().tool_choice).toEqual({ type: 'tool', name: 'apply_patch' });
  });

  it('a format the API does not define is refused by name (400), not sent half-understood', async () => {
    const bad = [
      { type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'pcre', definition: 'a' } },
    ] as unknown as OpenAI.Responses.Tool[];
    const before = harness.emulator.requests.length;
    const error = await client.responses
      .create({ model: upstreams['anthropic-messages'].alias, input: 'x', tools: bad })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('tools.0.format.syntax');
    expect(harness.emulator.requests).toHaveLength(before);
  });

  it('tools declared in an additional_tools input item (Codex code mode) are offered; a namespaced custom call comes back in its namespace', async () => {
    const exec = 'await tools.apply_patch("*** Begin Patch");';
    harness.emulator.enqueue({
      type: 'scripted',
      content: [
        {
          type: 'tool-call',
          id: 'toolu_01EXEC',
          name: safeToolName('functions.exec'),
          input: { input: exec },
        },
      ],
      usage: { input: 9, output: 4 },
    } as EmulatorScript);
    const stream = client.responses.stream({
      model: upstreams['anthropic-messages'].alias,
      input: [
        {
          type: 'additional_tools',
          role: 'developer',
          tools: [
            {
              type: 'namespace',
              name: 'functions',
              description: '',
              tools: [
                {
                  type: 'custom',
                  name: 'exec',
                  description: 'Run JavaScript.',
                  format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
                },
                { type: 'function', name: 'wait', parameters: { type: 'object' }, strict: false },
              ],
            },
          ],
        },
        { role: 'user', content: 'Patch it.' },
      ] as unknown as OpenAI.Responses.ResponseInput,
    });
    const final = await stream.finalResponse();
    expect((lastBody().tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual([
      safeToolName('functions.exec'),
      safeToolName('functions.wait'),
    ]);
    expect(final.output).toEqual([
      expect.objectContaining({
        type: 'custom_tool_call',
        name: 'exec',
        namespace: 'functions',
        input: exec,
      }),
    ]);
  });

  it('a Chat upstream’s call written as the raw patch, or as {"input": …} with literal newlines, still reaches the client as the patch', async () => {
    const chatCall = (argumentsText: string) => ({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-5-mini',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'apply_patch', arguments: argumentsText } },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
    });
    for (const written of [patch, `{"input": "${patch.replace(/["\\]/g, '\\$&')}"}`]) {
      harness.emulator.enqueue({ type: 'json', body: chatCall(written) } as EmulatorScript);
      const response = await client.responses.create({
        model: upstreams['openai-chat'].alias,
        input: 'Add hello.txt.',
        tools,
      });
      expect(response.output).toEqual([expect.objectContaining({ type: 'custom_tool_call', input: patch })]);
    }
  });

  it('a custom_tool_call with an empty input in the history is taken (a tool whose text is optional)', async () => {
    answers('Done.');
    const response = await client.responses.create({
      model: upstreams['anthropic-messages'].alias,
      tools,
      input: [
        { role: 'user', content: 'Patch.' },
        { type: 'custom_tool_call', call_id: 'call_E', name: 'apply_patch', input: '' },
        { type: 'custom_tool_call_output', call_id: 'call_E', output: 'invalid patch' },
      ] as OpenAI.Responses.ResponseInput,
    });
    expect(response.status).toBe('completed');
  });

  it('a tool an additional_tools item declares again replaces the earlier declaration, in place', async () => {
    answers('OK.');
    await client.responses.create({
      model: upstreams['anthropic-messages'].alias,
      tools: [
        {
          type: 'function',
          name: 'shell',
          description: 'old',
          parameters: { type: 'object' },
          strict: false,
        },
        { type: 'function', name: 'read', parameters: { type: 'object' }, strict: false },
      ],
      input: [
        {
          type: 'additional_tools',
          tools: [{ type: 'function', name: 'shell', description: 'new', parameters: { type: 'object' } }],
        },
        { role: 'user', content: 'Go.' },
      ] as unknown as OpenAI.Responses.ResponseInput,
    });
    const offered = lastBody().tools as Array<{ name: string; description?: string }>;
    expect(offered.map((tool) => [tool.name, tool.description])).toEqual([
      ['shell', 'new'],
      ['read', undefined],
    ]);
  });
});
