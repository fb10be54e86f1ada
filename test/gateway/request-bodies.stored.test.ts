/**
 * Stored Responses state a body builds on: stored conversations that would grow past the body limit,
 * a store that fails or holds values of another shape, replies not stored, and earlier turns carried.
 */
import { describe, expect, it } from 'vitest';
import { gatewayWithStore, scriptedText, useGatewayHarness } from './harness.ts';

const harness = useGatewayHarness({ body_limit_bytes: 4096 });
const hello = scriptedText;

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  harness.post(path, body, headers);

const chatBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }], ...extra });

describe('a stored Responses conversation is bounded', () => {
  it('one over the body limit is not stored and the reply says store: false; a chain of requests under the limit cannot grow it past the limit', async () => {
    const turn = (input: string, previous?: string) => {
      harness.emulator.enqueue(hello('Noted.'));
      return post(
        '/v1/responses',
        JSON.stringify({
          model: 'up-chat',
          input,
          ...(previous === undefined ? {} : { previous_response_id: previous }),
        }),
      );
    };
    const first = await turn('x'.repeat(2500));
    expect(first.status).toBe(200);
    const firstBody = (await first.json()) as { id: string; store: boolean };
    expect(firstBody.store).toBe(true);
    const second = await turn('y'.repeat(2500), firstBody.id);
    expect(second.status).toBe(200);
    const secondBody = (await second.json()) as { id: string; store: boolean };
    expect(secondBody.store).toBe(false);
    const third = await post(
      '/v1/responses',
      JSON.stringify({ model: 'up-chat', input: 'z', previous_response_id: secondBody.id }),
    );
    expect(third.status).toBe(404);
  });
});

it('a store that fails after the upstream call costs the next turn, never this reply: a 200 that says store: false', async () => {
  const failing = {
    get: async () => undefined,
    put: async () => {
      throw new Error('store down');
    },
  };
  const gateway = gatewayWithStore(harness.emulator.url, failing);
  harness.emulator.enqueue(hello('Paid for.'));
  const response = await gateway.app.request('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'store-chat', input: 'Hi' }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    store: boolean;
    output: Array<{ content: Array<{ text: string }> }>;
  };
  expect(body.store).toBe(false);
  expect(body.output[0]!.content[0]!.text).toBe('Paid for.');
});

it.each([
  ['not an object', 42],
  ['a transcript that is not a list', { transcript: 5 }],
  ['an item without parts', { transcript: [{ kind: 'user' }] }],
  ['a part that is not an object', { transcript: [{ kind: 'assistant', parts: [null] }] }],
  ['artifacts of the wrong types', { signature: 5, reasoning: 'x' }],
  [
    'a tool call without an id',
    { transcript: [{ kind: 'assistant', parts: [{ type: 'tool-call', name: 'f' }] }] },
  ],
  ['an item of an unknown kind', { transcript: [{ kind: 'robot', parts: [{ type: 'text', text: 'x' }] }] }],
])('a value another writer left in the store (%s) is no value: never a 500', async (_, planted) => {
  const gateway = gatewayWithStore(harness.emulator.url, { get: async () => planted, put: async () => {} });
  const continued = await gateway.app.request('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'store-chat', input: 'Hi', previous_response_id: 'resp_1' }),
  });
  expect(continued.status).toBe(404);
  harness.emulator.enqueue(hello('With history.'));
  const chat = await gateway.app.request('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'store-chat',
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
      ],
    }),
  });
  expect(chat.status).toBe(200);
});

it.each(['identity', 'IDENTITY', 'identity, identity', ''])(
  'content-encoding %j is a body as it is',
  async (coding) => {
    harness.emulator.enqueue(hello());
    const response = await post('/v1/chat/completions', chatBody(), { 'content-encoding': coding });
    expect(response.status).toBe(200);
  },
);

it('a Responses reply that fails in-band is not stored, and its response.failed says store: false', async () => {
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'Let me call' }],
    finishReason: 'MALFORMED_FUNCTION_CALL',
  });
  const response = await post(
    '/v1/responses',
    JSON.stringify({ model: 'up-gemini', input: 'Hi', stream: true }),
  );
  const text = await response.text();
  const failed = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; response?: { id: string; store: boolean } })
    .find((event) => event.type === 'response.failed');
  expect(failed?.response?.store).toBe(false);
  const next = await post(
    '/v1/responses',
    JSON.stringify({ model: 'up-gemini', input: 'again', previous_response_id: failed!.response!.id }),
  );
  expect(next.status).toBe(404);
});

interface WireEvent {
  type: string;
  item?: { type: string; status: string; content: Array<{ text: string }> };
  response?: { output: unknown[] };
}

it('a Responses stream cut mid-answer: the message item cut short says status incomplete, in output_item.done and response.failed', async () => {
  harness.emulator.enqueue({
    type: 'scripted',
    chunkSize: 4,
    content: [{ type: 'text', text: 'A long answer that is cut' }],
    fault: { disconnectAfterEvents: 4 },
  });
  const response = await post(
    '/v1/responses',
    JSON.stringify({ model: 'up-chat', input: 'Hi', stream: true }),
  );
  const events = (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as WireEvent);
  const done = events.find((event) => event.type === 'response.output_item.done');
  const failed = events.find((event) => event.type === 'response.failed');
  expect(done?.item).toMatchObject({ type: 'message', status: 'incomplete' });
  expect(failed?.response?.output).toEqual([done?.item]);
  expect(done?.item?.content[0]?.text.length).toBeGreaterThan(0);
});

it('previous_response_id carries the earlier turns’ developer messages from input (only instructions are per turn)', async () => {
  harness.emulator.enqueue(hello('Bonjour'));
  const first = await post(
    '/v1/responses',
    JSON.stringify({
      model: 'up-chat',
      instructions: 'You are terse.',
      input: [
        { role: 'developer', content: 'Always answer in French.' },
        { role: 'user', content: 'hi' },
      ],
    }),
  );
  expect(first.status).toBe(200);
  const { id } = (await first.json()) as { id: string };
  harness.emulator.enqueue(hello('Encore'));
  const second = await post(
    '/v1/responses',
    JSON.stringify({ model: 'up-chat', instructions: 'Be brief.', input: 'again', previous_response_id: id }),
  );
  expect(second.status).toBe(200);
  const sent = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ role: string; content: unknown }>;
  };
  expect(sent.messages).toEqual([
    { role: 'developer', content: 'Be brief.\n\nAlways answer in French.' },
    { role: 'user', content: 'hi' },
    expect.objectContaining({ role: 'assistant', content: 'Bonjour' }),
    { role: 'user', content: 'again' },
  ]);
});
