/**
 * Responses `item_reference` input items: an item id the gateway returned in a stored response
 * (message, reasoning, function call, custom tool call) is put back as that reply part, for the
 * key that made it only. The Vercel AI SDK's default OpenAI provider sends one for the assistant
 * message of step 1 in step 2 of every tool loop (the reply said `store: true`). An id that is
 * unknown, expired, another key's or of a reply not stored is a 404 naming it, never dropped.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;
const keyA = { authorization: 'Bearer key-a' };
const keyB = { authorization: 'Bearer key-b' };

beforeAll(async () => {
  harness = await startGatewayHarness({
    keys: [
      { name: 'a', key: digest('key-a') },
      { name: 'b', key: digest('key-b') },
    ],
  });
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

interface Item {
  id: string;
  type: string;
  call_id?: string;
}
interface Reply {
  id: string;
  store: boolean;
  output: Item[];
  error: { message: string; type: string; param: string | null };
}

async function respond(body: object, headers: Record<string, string> = keyA) {
  const response = await harness.post('/v1/responses', body, headers);
  return { status: response.status, reply: (await response.json()) as Reply };
}

const weather = {
  type: 'function',
  name: 'weather',
  description: 'weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};
const user = { role: 'user', content: [{ type: 'input_text', text: 'weather in Paris?' }] };

/** Step 1 of a tool loop: the model says a line and calls `weather`. */
function scriptToolCall(): void {
  harness.emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool-call', name: 'weather', input: { city: 'Paris' } },
    ],
    usage: { input: 5, output: 3 },
  });
}
const scriptAnswer = () =>
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'It is sunny in Paris.' }],
    usage: { input: 5, output: 3 },
  });

it('the Vercel AI SDK’s step 2 (a reference to step 1’s message, the call sent whole) is served with that message in its place', async () => {
  scriptToolCall();
  scriptAnswer();
  const step1 = await respond({
    model: 'up-responses',
    input: [user],
    tools: [weather],
    tool_choice: 'auto',
  });
  expect(step1.status).toBe(200);
  expect(step1.reply.store).toBe(true);
  const [message, call] = step1.reply.output;
  expect([message!.type, call!.type]).toEqual(['message', 'function_call']);
  // The AI SDK's step-2 body, as @ai-sdk/openai sends it (f2-aisdk-item-reference.ts).
  const step2 = await respond({
    model: 'up-responses',
    input: [
      user,
      { type: 'item_reference', id: message!.id },
      { type: 'function_call', call_id: call!.call_id, name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: call!.call_id, output: '{"city":"Paris","sky":"sunny"}' },
    ],
    tools: [weather],
    tool_choice: 'auto',
  });
  expect(step2.status, JSON.stringify(step2.reply)).toBe(200);
  const upstream = harness.emulator.requests.at(-1)!.body as { input: Array<Record<string, unknown>> };
  // The referenced message went upstream before the call it came with, as step 1 returned them.
  expect(upstream.input.map((item) => item.type ?? item.role)).toEqual([
    'message',
    'message',
    'function_call',
    'function_call_output',
  ]);
  expect(JSON.stringify(upstream.input[1])).toContain('Let me check.');
});

it('each item kind resolves by id alone: reasoning (its signature intact), message, function call and custom tool call', async () => {
  harness.emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'The user wants weather.', signature: 'sig-step-one' },
      { type: 'text', text: 'Checking both.' },
      { type: 'tool-call', id: 'toolu_w', name: 'weather', input: { city: 'Paris' } },
      { type: 'tool-call', id: 'toolu_p', name: 'apply_patch', input: { input: '*** Begin Patch' } },
    ],
    usage: { input: 5, output: 3 },
  });
  scriptAnswer();
  const tools = [weather, { type: 'custom', name: 'apply_patch', description: 'patch files' }];
  const step1 = await respond({ model: 'up-anthropic', input: [user], tools });
  expect(step1.status, JSON.stringify(step1.reply)).toBe(200);
  expect(step1.reply.output.map((item) => item.type)).toEqual([
    'reasoning',
    'message',
    'function_call',
    'custom_tool_call',
  ]);
  const [, , weatherCall, patchCall] = step1.reply.output;
  const step2 = await respond({
    model: 'up-anthropic',
    input: [
      user,
      ...step1.reply.output.map((item) => ({ type: 'item_reference', id: item.id })),
      { type: 'function_call_output', call_id: weatherCall!.call_id, output: 'sunny' },
      { type: 'custom_tool_call_output', call_id: patchCall!.call_id, output: 'patched' },
    ],
    tools,
  });
  expect(step2.status, JSON.stringify(step2.reply)).toBe(200);
  const { messages } = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
  };
  expect(messages[1]!.role).toBe('assistant');
  expect(messages[1]!.content.map((block) => block.type)).toEqual([
    'thinking',
    'text',
    'tool_use',
    'tool_use',
  ]);
  expect(messages[1]!.content[0]).toMatchObject({
    thinking: 'The user wants weather.',
    signature: 'sig-step-one',
  });
  expect(messages[1]!.content[1]).toMatchObject({ text: 'Checking both.' });
  expect(messages[1]!.content[2]).toMatchObject({
    id: weatherCall!.call_id,
    name: 'weather',
    input: { city: 'Paris' },
  });
  expect(messages[1]!.content[3]).toMatchObject({ id: patchCall!.call_id, name: 'apply_patch' });
});

it('the items of a streamed reply resolve as a whole reply’s do', async () => {
  scriptToolCall();
  scriptAnswer();
  const response = await harness.post(
    '/v1/responses',
    { model: 'up-chat', input: [user], tools: [weather], stream: true },
    keyA,
  );
  const completed = (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; response?: Reply })
    .find((event) => event.type === 'response.completed')!.response!;
  const [message, call] = completed.output;
  const step2 = await respond({
    model: 'up-chat',
    input: [
      user,
      { type: 'item_reference', id: message!.id },
      { type: 'item_reference', id: call!.id },
      { type: 'function_call_output', call_id: call!.call_id, output: 'sunny' },
    ],
    tools: [weather],
  });
  expect(step2.status, JSON.stringify(step2.reply)).toBe(200);
  const { messages } = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ role: string; content: unknown; tool_calls?: Array<{ id: string }> }>;
  };
  expect(messages[1]).toMatchObject({ role: 'assistant', content: 'Let me check.' });
  expect(messages[1]!.tool_calls?.map((toolCall) => toolCall.id)).toEqual([call!.call_id]);
});

/** Refused before any upstream call: a 404 in Responses' shape naming the id and its place. */
async function expectNotFound(id: string, headers: Record<string, string> = keyA): Promise<void> {
  const before = harness.emulator.requests.length;
  const { status, reply } = await respond(
    { model: 'up-chat', input: [user, { type: 'item_reference', id }] },
    headers,
  );
  expect(status).toBe(404);
  expect(reply.error).toMatchObject({
    type: 'invalid_request_error',
    message: `Item with id '${id}' not found.`,
    param: 'input.1.id',
  });
  expect(harness.emulator.requests.length).toBe(before);
}

it('another key’s item ids are not found (each key sees only its own stored responses)', async () => {
  scriptToolCall();
  const step1 = await respond({ model: 'up-chat', input: [user], tools: [weather] });
  expect(step1.status).toBe(200);
  for (const item of step1.reply.output) await expectNotFound(item.id, keyB);
});

it('an unknown, malformed or out-of-range id, and an item of a reply not stored, are not found', async () => {
  scriptToolCall();
  const step1 = await respond({ model: 'up-chat', input: [user], tools: [weather] });
  const [message, call] = step1.reply.output;
  await expectNotFound(`msg_${'0'.repeat(50)}_0`);
  await expectNotFound('msg_not-an-id');
  await expectNotFound(message!.id.replace(/_0$/, '_7'));
  // The id of the call with a message's prefix: not the item that was returned.
  await expectNotFound(call!.id.replace(/^fc_/, 'msg_'));
  scriptToolCall();
  const unstored = await respond({ model: 'up-chat', input: [user], tools: [weather], store: false });
  expect(unstored.reply.store).toBe(false);
  await expectNotFound(unstored.reply.output[0]!.id);
});

it('a reference with no id is a 400 naming the field', async () => {
  const { status, reply } = await respond({ model: 'up-chat', input: [user, { type: 'item_reference' }] });
  expect(status).toBe(400);
  expect(reply.error.param).toBe('input.1.id');
});
