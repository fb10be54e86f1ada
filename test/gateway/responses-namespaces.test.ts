/**
 * Responses `namespace` tools (Codex sends its sub-agent tools as one: `multi_agent_v1` holding
 * `spawn_agent`, `wait_agent`, …): their functions are offered to any upstream, and a call to one
 * comes back as the client declared it — `name` with its `namespace` — whole and streamed; a call
 * sent back in the history with its namespace reaches the upstream as the same tool. Before, the
 * namespace was left out with a warning, and the model could not call its tools at all.
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

const model = upstreams['anthropic-messages'].alias;
const spawn = 'multi_agent_v1.spawn_agent';
const tools = [
  { type: 'function' as const, name: 'exec_command', parameters: { type: 'object' }, strict: false },
  {
    type: 'namespace',
    name: 'multi_agent_v1',
    description: 'Tools for spawning and managing sub-agents.',
    tools: [
      {
        type: 'function',
        name: 'spawn_agent',
        description: 'Spawn a sub-agent.',
        strict: false,
        parameters: { type: 'object', properties: { task: { type: 'string' } }, required: ['task'] },
      },
      { type: 'function', name: 'wait_agent', strict: false, parameters: { type: 'object' } },
    ],
  },
] as unknown as OpenAI.Responses.Tool[];

/** The upstream calls the namespaced tool by the (safe) name it was offered. */
const callsSpawn = (): EmulatorScript =>
  ({
    type: 'scripted',
    content: [{ type: 'tool-call', id: 'toolu_01SPAWN', name: safeToolName(spawn), input: { task: 'lint' } }],
    usage: { input: 9, output: 4 },
  }) as EmulatorScript;

const upstreamToolNames = () =>
  ((harness.emulator.requests.at(-1)!.body as { tools: Array<{ name: string }> }).tools ?? []).map(
    (tool) => tool.name,
  );

describe('Responses namespace tools through the gateway', () => {
  it('every function of the namespace is offered upstream; the call comes back with its namespace', async () => {
    harness.emulator.enqueue(callsSpawn());
    const response = await client.responses.create({ model, input: 'Lint it with a sub-agent.', tools });
    expect(upstreamToolNames()).toEqual([
      'exec_command',
      safeToolName(spawn),
      safeToolName('multi_agent_v1.wait_agent'),
    ]);
    const call = response.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({
      name: 'spawn_agent',
      namespace: 'multi_agent_v1',
      arguments: '{"task":"lint"}',
    });
  });

  it('streamed: output_item.added and .done name the call in its namespace', async () => {
    harness.emulator.enqueue(callsSpawn());
    const stream = await client.responses.create({
      model,
      input: 'Lint it with a sub-agent.',
      tools,
      stream: true,
    });
    const items: unknown[] = [];
    for await (const event of stream)
      if (event.type === 'response.output_item.added' || event.type === 'response.output_item.done')
        items.push(event.item);
    expect(items).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1' }),
      expect.objectContaining({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1' }),
    ]);
  });

  it('a plain function whose name holds the namespace and a dot stays plain; a dotted namespace keeps its name', async () => {
    const plain = 'multi_agent_v1.list_agents';
    const dotted = 'mcp.github';
    const more = [
      ...tools,
      { type: 'function', name: plain, parameters: { type: 'object' }, strict: false },
      {
        type: 'namespace',
        name: dotted,
        description: 'GitHub',
        tools: [{ type: 'function', name: 'create_issue', parameters: { type: 'object' } }],
      },
    ] as unknown as OpenAI.Responses.Tool[];
    const call = (name: string): EmulatorScript =>
      ({
        type: 'scripted',
        content: [{ type: 'tool-call', id: 'toolu_01X', name: safeToolName(name), input: {} }],
        usage: { input: 9, output: 4 },
      }) as EmulatorScript;
    harness.emulator.enqueue(call(plain));
    const first = await client.responses.create({ model, input: 'List them.', tools: more });
    const plainCall = first.output.find((item) => item.type === 'function_call')!;
    expect(plainCall).toMatchObject({ name: plain });
    expect(plainCall).not.toHaveProperty('namespace');
    harness.emulator.enqueue(call(`${dotted}.create_issue`));
    const second = await client.responses.create({ model, input: 'File it.', tools: more });
    expect(second.output.find((item) => item.type === 'function_call')).toMatchObject({
      name: 'create_issue',
      namespace: dotted,
    });
  });

  it('the call and its output sent back with the namespace reach the upstream as the same tool', async () => {
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Done.' }],
    } as EmulatorScript);
    await client.responses.create({
      model,
      tools,
      input: [
        { role: 'user', content: 'Lint it with a sub-agent.' },
        {
          type: 'function_call',
          call_id: 'toolu_01SPAWN',
          name: 'spawn_agent',
          namespace: 'multi_agent_v1',
          arguments: '{"task":"lint"}',
        },
        { type: 'function_call_output', call_id: 'toolu_01SPAWN', output: 'agent-7 started' },
      ] as OpenAI.Responses.ResponseInput,
    });
    const messages = (harness.emulator.requests.at(-1)!.body as { messages: Array<{ content: unknown }> })
      .messages;
    expect(JSON.stringify(messages)).toContain(`"name":"${safeToolName(spawn)}"`);
  });
});
