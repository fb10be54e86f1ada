/**
 * A tool call whose arguments the model did not finish as JSON (cut, invalid, or not an object) is
 * marked `incomplete` by the runtime and must never be run as if finished. Clients whose protocol
 * carries arguments as an object (Anthropic, Gemini) cannot see that marker: the gateway fails
 * such a reply (502 model failure, in-band after content) instead of handing them a repaired call.
 * Anthropic clients still get Anthropic's own answer for a call cut by the output limit; Chat and
 * Responses clients get the arguments as the model wrote them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => harness.emulator.clear());
afterAll(async () => {
  await harness?.close();
});

const cutArguments = '{"path": "/home/user", "recursive": tru';
const tool = { name: 'delete_files', description: 'Deletes files.' };
const schema = { type: 'object', properties: { path: { type: 'string' }, recursive: { type: 'boolean' } } };

/** A Chat Completions upstream reply: some text, then a call with `args`, finished with `finish`. */
function chatUpstream(stream: boolean, args: string, finish = 'tool_calls') {
  const call = { id: 'call_1', type: 'function', function: { name: tool.name, arguments: args } };
  if (!stream)
    return {
      type: 'json' as const,
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-5-mini',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Deleting.', tool_calls: [call] },
            finish_reason: finish,
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      },
    };
  const chunk = (choice: object) => ({
    data: {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-5-mini',
      choices: [choice],
    },
  });
  return {
    type: 'sse' as const,
    events: [
      chunk({ index: 0, delta: { role: 'assistant', content: 'Deleting.' } }),
      chunk({ index: 0, delta: { tool_calls: [{ index: 0, ...call }] } }),
      chunk({ index: 0, delta: {}, finish_reason: finish }),
      { data: '[DONE]' },
    ],
  };
}

const post = (path: string, body: object) =>
  fetch(`${harness.server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });

const anthropicBody = (stream: boolean) => ({
  model: 'up-chat',
  max_tokens: 100,
  stream,
  messages: [{ role: 'user', content: 'Clean up.' }],
  tools: [{ ...tool, input_schema: schema }],
});
const geminiBody = {
  contents: [{ role: 'user', parts: [{ text: 'Clean up.' }] }],
  tools: [{ functionDeclarations: [{ ...tool, parameters: schema }] }],
};

describe.each([
  ['cut short', cutArguments],
  ['not an object', '[1, 2]'],
])('a tool call whose arguments are %s, finished as a tool call', (_, args) => {
  it('to an Anthropic client: a 502 model failure in Anthropic’s shape, not a call to run', async () => {
    harness.emulator.enqueue(chatUpstream(false, args));
    const response = await post('/v1/messages', anthropicBody(false));
    expect(response.status).toBe(502);
    const body = (await response.json()) as { type: string; error: { message: string } };
    expect(body.type).toBe('error');
    expect(body.error.message).toContain('without complete JSON arguments');
  });

  it('to a streaming Anthropic client: the text, then an in-band error instead of the finish', async () => {
    harness.emulator.enqueue(chatUpstream(true, args));
    const response = await post('/v1/messages', anthropicBody(true));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('Deleting.');
    expect(text).toContain('event: error');
    expect(text).toContain('without complete JSON arguments');
    expect(text).not.toContain('message_stop');
    expect(text).not.toContain('"stop_reason":"tool_use"');
  });

  it.each([false, true])(
    'to a Gemini client (streamed: %s): no functionCall ever reaches it',
    async (stream) => {
      harness.emulator.enqueue(chatUpstream(stream, args));
      const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
      const response = await post(`/v1beta/models/up-chat:${method}`, geminiBody);
      const text = await response.text();
      expect(text).not.toContain('functionCall');
      expect(text).toContain('without complete JSON arguments');
      if (stream) expect(text).toContain('Deleting.');
      else expect(response.status).toBe(502);
    },
  );

  it('to a Chat client: the arguments as the model wrote them (what the OpenAI API gives)', async () => {
    harness.emulator.enqueue(chatUpstream(false, args));
    const response = await post('/v1/chat/completions', {
      model: 'up-chat',
      messages: [{ role: 'user', content: 'Clean up.' }],
      tools: [{ type: 'function', function: { ...tool, parameters: schema } }],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      choices: Array<{
        message: { tool_calls: Array<{ function: { arguments: string } }> };
        finish_reason: string;
      }>;
    };
    expect(body.choices[0]?.message.tool_calls[0]?.function.arguments).toBe(args);
    expect(body.choices[0]?.finish_reason).toBe('tool_calls');
  });
});

it('a call cut by the output limit reaches an Anthropic client as Anthropic answers it: the call with stop_reason max_tokens', async () => {
  harness.emulator.enqueue(chatUpstream(false, cutArguments, 'length'));
  const response = await post('/v1/messages', anthropicBody(false));
  expect(response.status).toBe(200);
  const body = (await response.json()) as { stop_reason: string; content: Array<{ type: string }> };
  expect(body.stop_reason).toBe('max_tokens');
  expect(body.content.map((part) => part.type)).toEqual(['text', 'tool_use']);
});

it('a call cut by the output limit never reaches a Gemini client, which runs any functionCall it gets', async () => {
  harness.emulator.enqueue(chatUpstream(false, cutArguments, 'length'));
  const response = await post('/v1beta/models/up-chat:generateContent', geminiBody);
  expect(response.status).toBe(502);
  expect(await response.text()).not.toContain('functionCall');
});

describe('an unfinished call fails the reply only after the rest of it is known', () => {
  it('a Gemini stream cut inside a tool call keeps its own error (the cut, retryable), never a model failure', async () => {
    const cut = chatUpstream(true, cutArguments);
    if (cut.type !== 'sse') throw new Error('a streamed upstream reply is SSE');
    harness.emulator.enqueue({ ...cut, events: cut.events.slice(0, 2) });
    const response = await post('/v1beta/models/up-chat:streamGenerateContent?alt=sse', geminiBody);
    const text = await response.text();
    expect(text).toContain('Deleting.');
    expect(text).not.toContain('functionCall');
    expect(text).toContain('"status":"UNAVAILABLE"');
    expect(text).not.toContain('without complete JSON arguments');
    expect(harness.accessLog.at(-1)).toMatchObject({ errorClass: 'network' });
  });

  it.each([
    ['a Gemini', '/v1beta/models/up-chat:streamGenerateContent?alt=sse', geminiBody],
    ['an Anthropic', '/v1/messages', anthropicBody(true)],
  ])(
    '%s stream that fails on an unfinished call is billed and logged with its usage',
    async (_, path, body) => {
      harness.emulator.enqueue(chatUpstream(true, cutArguments));
      const response = await post(path, body);
      expect(await response.text()).toContain('without complete JSON arguments');
      const line = harness.accessLog.at(-1)!;
      expect(line).toMatchObject({ status: 502, provider: 'openai' });
      expect(line.outputTokens).toBeGreaterThan(0);
    },
  );
});
