/**
 * A tool call's arguments text as the upstream wrote it (spacing, key order, `1.0`, `1e2`) reaches a
 * client whose protocol carries arguments as a string (Chat `function.arguments`, Responses
 * `arguments`) unchanged, whole as streamed; text that is not JSON reaches it as received.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorScript } from 'switchyard-ai/testing';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
let clients: ReturnType<typeof createClients>;

beforeAll(async () => {
  harness = await startGatewayHarness();
  clients = createClients(harness.server.url);
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

/** Valid JSON that `JSON.stringify(JSON.parse(text))` would change: spacing, `1.0`, `1e2`, an integer key moved first. */
const written = '{ "z": 1.0, "10": "ten",\n  "list": [1e2, -0.50] }';
/** Not JSON: the model stopped mid-object. */
const cut = '{"city": "Par';

const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
const responsesTools = [
  { type: 'function' as const, name: 'lookup', parameters: { type: 'object' }, strict: false },
];

/** A whole Chat upstream reply of one call whose arguments text is `text`. */
function chatReply(text: string): EmulatorScript {
  return {
    type: 'json',
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-5-mini',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: text } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    },
  };
}

/** A whole Responses upstream reply of one call whose arguments text is `text`. */
function responsesReply(text: string): EmulatorScript {
  return {
    type: 'json',
    body: {
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: 'gpt-5-mini',
      output: [
        {
          id: 'fc_1',
          type: 'function_call',
          call_id: 'call_1',
          name: 'lookup',
          arguments: text,
          status: 'completed',
        },
      ],
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    },
  };
}

/** A streamed Chat upstream reply of one call whose arguments text arrives as `pieces`. */
function chatStream(pieces: string[]): EmulatorScript {
  const chunk = (delta: object, finish: string | null = null) => ({
    data: {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-5-mini',
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  });
  return {
    type: 'sse',
    events: [
      chunk({
        role: 'assistant',
        tool_calls: [
          { index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } },
        ],
      }),
      ...pieces.map((piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
      chunk({}, 'tool_calls'),
      { data: '[DONE]' },
    ],
  };
}

async function chatArguments(model: string): Promise<string> {
  const completion = await clients.openai.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'Look it up.' }],
    tools,
  });
  const call = completion.choices[0]!.message.tool_calls![0]!;
  return call.type === 'function' ? call.function.arguments : '';
}

async function responsesArguments(model: string): Promise<string> {
  const response = await clients.openai.responses.create({
    model,
    input: 'Look it up.',
    tools: responsesTools,
    store: false,
  });
  const item = response.output.find((entry) => entry.type === 'function_call');
  return item?.arguments ?? '';
}

describe('a whole reply keeps the upstream’s arguments text', () => {
  it.each([
    ['Chat', 'Chat', 'up-chat', chatReply, chatArguments],
    ['Chat', 'Responses', 'up-chat', chatReply, responsesArguments],
    ['Responses', 'Chat', 'up-responses', responsesReply, chatArguments],
    ['Responses', 'Responses', 'up-responses', responsesReply, responsesArguments],
  ])('%s upstream → %s client: the text exactly, not re-serialized', async (_, __, model, reply, read) => {
    harness.emulator.enqueue(reply(written));
    expect(await read(model)).toBe(written);
  });

  it('an Anthropic client gets the parsed object, as before', async () => {
    harness.emulator.enqueue(chatReply(written));
    const message = await clients.anthropic.messages.create({
      model: 'up-chat',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Look it up.' }],
      tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
    });
    const block = message.content.find((entry) => entry.type === 'tool_use');
    expect(block?.input).toEqual({ z: 1, 10: 'ten', list: [100, -0.5] });
  });

  it.each([
    ['Chat', chatReply],
    ['Responses', responsesReply],
  ])('%s upstream: arguments that are not JSON reach a Chat client as received', async (_, reply) => {
    harness.emulator.enqueue(reply(cut));
    expect(await chatArguments(reply === chatReply ? 'up-chat' : 'up-responses')).toBe(cut);
  });
});

describe('a streamed reply passes the upstream’s arguments text', () => {
  it.each([
    ['JSON written its own way', written],
    ['text that is not JSON', cut],
  ])('Chat upstream → Chat client: %s, the pieces joined, as received', async (_, text) => {
    harness.emulator.enqueue(chatStream([text.slice(0, 7), text.slice(7)]));
    const stream = await clients.openai.chat.completions.create({
      model: 'up-chat',
      messages: [{ role: 'user', content: 'Look it up.' }],
      tools,
      stream: true,
    });
    let joined = '';
    for await (const chunk of stream)
      joined += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
    expect(joined).toBe(text);
  });
});
