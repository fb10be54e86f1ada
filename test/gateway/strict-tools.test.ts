/**
 * A client's own `strict` on a tool (Chat `function.strict`, Responses `strict`, Anthropic `strict`)
 * reaches an OpenAI upstream with no adapter option set: the tool goes strict (its schema made
 * strict-ready) and the `null`s that adds are left out of the call the client gets; `strict: false`
 * or no flag sends it as before.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { anthropicClient, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const parameters = {
  type: 'object',
  properties: { city: { type: 'string' }, units: { type: 'string' } },
  required: ['city'],
};
const answer = {
  type: 'scripted' as const,
  content: [{ type: 'tool-call' as const, name: 'weather', input: { city: 'Rome', units: null } }],
};
type UpstreamTool = { strict?: boolean; parameters?: { required?: string[] }; function?: UpstreamTool };
const upstreamTool = () => {
  const tool = (harness.emulator.requests.at(-1)!.body as { tools: UpstreamTool[] }).tools[0]!;
  return tool.function ?? tool;
};

it('a Chat client’s strict tool reaches a Chat upstream strict, and its call comes back without the added null', async () => {
  harness.emulator.enqueue(answer);
  const response = await harness.post('/v1/chat/completions', {
    model: 'up-chat',
    messages: [{ role: 'user', content: 'Weather?' }],
    tools: [{ type: 'function', function: { name: 'weather', parameters, strict: true } }],
  });
  const reply = (await response.json()) as {
    choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> } }>;
  };
  expect(upstreamTool()).toMatchObject({ strict: true, parameters: { required: ['city', 'units'] } });
  expect(JSON.parse(reply.choices[0]!.message.tool_calls[0]!.function.arguments)).toEqual({ city: 'Rome' });
});

it('a Responses client’s strict tool reaches a Responses upstream strict; strict: false stays off', async () => {
  for (const strict of [true, false]) {
    harness.emulator.enqueue(answer);
    const response = await harness.post('/v1/responses', {
      model: 'up-responses',
      input: 'Weather?',
      tools: [{ type: 'function', name: 'weather', parameters, strict }],
    });
    const reply = (await response.json()) as { output: Array<{ type: string; arguments?: string }> };
    const call = reply.output.find((item) => item.type === 'function_call')!;
    expect(upstreamTool().strict).toBe(strict);
    expect(JSON.parse(call.arguments!)).toEqual(strict ? { city: 'Rome' } : { city: 'Rome', units: null });
  }
});

it('an Anthropic client’s strict tool reaches a Chat upstream strict; a tool without the flag does not', async () => {
  for (const strict of [true, undefined]) {
    harness.emulator.enqueue(answer);
    const response = await harness.post(
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [{ name: 'weather', input_schema: parameters, ...(strict === undefined ? {} : { strict }) }],
      },
      anthropicClient,
    );
    const reply = (await response.json()) as { content: Array<{ type: string; input?: unknown }> };
    expect(upstreamTool().strict).toBe(strict);
    expect(reply.content.find((block) => block.type === 'tool_use')?.input).toEqual(
      strict === true ? { city: 'Rome' } : { city: 'Rome', units: null },
    );
  }
});
