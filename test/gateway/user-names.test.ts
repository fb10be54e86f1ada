/**
 * A Chat client's user `name`: two named users' turns are never merged into one. An OpenAI Chat
 * upstream gets each as a message with its `name`; Anthropic, Responses and Gemini upstreams, which
 * have no such field, get the name before each turn’s text (`alice: …`) when there are two or more
 * names (one name throughout tells nothing apart: the text goes as written).
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const ask = async (model: string, messages: unknown[]) => {
  harness.emulator.enqueue(scriptedText());
  const response = await harness.post('/v1/chat/completions', { model, messages });
  expect(response.status).toBe(200);
  return harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
};
const twoUsers = [
  { role: 'user', name: 'alice', content: 'hi from alice' },
  { role: 'user', name: 'bob', content: 'hi from bob' },
];

it('an OpenAI Chat upstream: two messages, each with its name', async () => {
  const body = await ask('up-chat', twoUsers);
  expect(body.messages).toEqual([
    { role: 'user', content: 'hi from alice', name: 'alice' },
    { role: 'user', content: 'hi from bob', name: 'bob' },
  ]);
});

it('an Anthropic upstream: each turn’s text after its name', async () => {
  const body = await ask('up-anthropic', twoUsers);
  expect(body.messages).toEqual([
    {
      role: 'user',
      content: [
        { type: 'text', text: 'alice: hi from alice' },
        { type: 'text', text: 'bob: hi from bob' },
      ],
    },
  ]);
});

it('a Responses upstream: two messages, each text after its name', async () => {
  const body = await ask('up-responses', twoUsers);
  const texts = (body.input as Array<{ content: Array<{ text: string }> }>).map(
    (item) => item.content[0]!.text,
  );
  expect(texts).toEqual(['alice: hi from alice', 'bob: hi from bob']);
});

it('a Gemini upstream: each text after its name', async () => {
  const body = await ask('up-gemini', twoUsers);
  expect(body.contents).toEqual([
    { role: 'user', parts: [{ text: 'alice: hi from alice' }, { text: 'bob: hi from bob' }] },
  ]);
});

it('a named user’s turn is not joined to an unnamed one after it; the same name twice is one turn', async () => {
  const body = await ask('up-chat', [
    { role: 'user', name: 'alice', content: 'one' },
    { role: 'user', name: 'alice', content: [{ type: 'text', text: 'two' }] },
    { role: 'user', content: 'three' },
  ]);
  expect(body.messages).toEqual([
    {
      role: 'user',
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
      name: 'alice',
    },
    { role: 'user', content: 'three' },
  ]);
});

it('unnamed users are as before: one turn', async () => {
  const body = await ask('up-chat', [
    { role: 'user', content: 'one' },
    { role: 'user', content: 'two' },
  ]);
  expect((body.messages as unknown[]).length).toBe(1);
});

// Some clients name every message (`name: "user"`): one name tells nothing apart.
it('one name throughout: toward Claude the text is as written, no name before it', async () => {
  const body = await ask('up-anthropic', [
    { role: 'user', name: 'user', content: 'first' },
    { role: 'assistant', content: 'ok' },
    { role: 'user', name: 'user', content: 'second' },
  ]);
  expect(JSON.stringify(body.messages)).not.toContain('user:');
  expect(body.messages).toMatchObject([
    { role: 'user', content: [{ type: 'text', text: 'first' }] },
    { role: 'assistant' },
    { role: 'user', content: [{ type: 'text', text: 'second' }] },
  ]);
});
