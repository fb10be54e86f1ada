/**
 * Tool calls in request bodies: ids longer than an upstream takes, numbers past a double's
 * precision, and replayed arguments text kept as the model wrote it.
 */
import { describe, expect, it } from 'vitest';
import { scriptedText, useGatewayHarness } from './harness.ts';

const harness = useGatewayHarness({ body_limit_bytes: 4096 });
const hello = scriptedText;

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  harness.post(path, body, headers);

/**
 * A Chat client's turn replaying one call to `name` with `text` as its arguments, answered by the
 * Chat upstream: the arguments text the upstream got for that call.
 */
async function replayedArguments(name: string, text: string): Promise<string> {
  harness.emulator.enqueue(hello());
  const response = await post(
    '/v1/chat/completions',
    JSON.stringify({
      model: 'up-chat',
      messages: [
        { role: 'user', content: 'Go.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: text } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name, parameters: { type: 'object' } } }],
    }),
  );
  expect(response.status).toBe(200);
  const sent = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ tool_calls?: Array<{ function: { arguments: string } }> }>;
  };
  return sent.messages[1]!.tool_calls![0]!.function.arguments;
}

it('a tool-call id longer than OpenAI’s 40 characters (written by another provider) reaches Chat Completions as a digest, still paired', async () => {
  const long = `toolu_vrtx_${'A1b2C3d4'.repeat(6)}`; // 59 characters
  harness.emulator.enqueue(hello());
  const response = await post(
    '/v1/messages',
    JSON.stringify({
      model: 'up-chat',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: long, name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: long, content: 'sunny' }] },
      ],
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
    }),
  );
  expect(response.status).toBe(200);
  const sent = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
  };
  const id = sent.messages[1]!.tool_calls![0]!.id;
  expect(id.length).toBeLessThanOrEqual(40);
  expect(sent.messages[2]!.tool_call_id).toBe(id);
});

it('a tool-call id longer than the Responses API’s 64 characters (an MCP tool’s, another provider’s) reaches it as a digest, the same on the call and its output', async () => {
  const long = `mcp__filesystem__read_file__${'A1b2C3d4'.repeat(6)}`; // 76 characters
  harness.emulator.enqueue(hello());
  const response = await post(
    '/v1/messages',
    JSON.stringify({
      model: 'up-responses',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'Read it.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: long, name: 'read_file', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: long, content: 'text' }] },
      ],
      tools: [{ name: 'read_file', input_schema: { type: 'object' } }],
    }),
  );
  expect(response.status).toBe(200);
  const sent = harness.emulator.requests.at(-1)!.body as {
    input: Array<{ type?: string; call_id?: string }>;
  };
  const call = sent.input.find((item) => item.type === 'function_call')!;
  const output = sent.input.find((item) => item.type === 'function_call_output')!;
  expect(call.call_id!.length).toBeLessThanOrEqual(64);
  expect(output.call_id).toBe(call.call_id);
});

describe('tool-call numbers past a double’s precision (a 19-digit id)', () => {
  const exact = '{"user_id": 1234567890123456789, "note": "x"}';
  /** A whole Chat upstream reply: one call whose arguments text is `exact`. */
  const toolCallReply = {
    type: 'json' as const,
    body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-5-mini","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":${JSON.stringify(exact)}}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
  };

  it('a whole Chat reply gives the client the model’s arguments text exactly, not re-serialized', async () => {
    harness.emulator.enqueue(toolCallReply);
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({
        model: 'up-chat',
        messages: [{ role: 'user', content: 'Look up the user.' }],
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      }),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> } }>;
    };
    expect(body.choices[0]!.message.tool_calls[0]!.function.arguments).toBe(exact);
  });

  it.each([
    [
      'an Anthropic client',
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Look up the user.' }],
        tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      },
    ],
    [
      'a Gemini client',
      '/v1beta/models/up-chat:generateContent',
      {
        contents: [{ role: 'user', parts: [{ text: 'Look up the user.' }] }],
        tools: [{ functionDeclarations: [{ name: 'lookup', parameters: { type: 'object' } }] }],
      },
    ],
  ])(
    '%s gets the number exactly in its arguments object (written as the model wrote it)',
    async (_, path, body) => {
      harness.emulator.enqueue(toolCallReply);
      const response = await post(path, JSON.stringify(body), { 'anthropic-version': '2023-06-01' });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('"user_id":1234567890123456789');
    },
  );

  it('a Chat client’s replayed call reaches a Chat upstream with its arguments text exactly', async () => {
    expect(await replayedArguments('lookup', exact)).toBe(exact);
  });
});

it('a replayed call whose arguments text holds a "__proto__" key (as a model wrote it, served as text) is taken: the upstream gets the text as written', async () => {
  const text = '{"code":"obj.__proto__ = x","__proto__":{"polluted":true}}';
  expect(await replayedArguments('run', text)).toBe(text);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
