/**
 * A client's consecutive assistant messages reach an OpenAI Chat upstream, whose assistant content
 * is one string here, with a blank line between them: the codecs fold them into one transcript item,
 * which marks where each message began. Found by a prober: two Chat `assistant` messages reached a
 * Chat upstream as "First answer.Second answer.". One message's text split into parts (an Anthropic
 * answer's blocks around its citations, a Gemini content's parts) still joins with nothing.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createClients, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
let clients: ReturnType<typeof createClients>;
beforeAll(async () => {
  harness = await startGatewayHarness();
  clients = createClients(harness.server.url);
});
beforeEach(() => {
  harness.emulator.clear();
  harness.emulator.enqueue(scriptedText('ok'));
});
afterAll(() => harness?.close());

/** The assistant message the Chat upstream got. */
const sentAssistant = () =>
  (
    harness.emulator.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> }
  ).messages.find((message) => message.role === 'assistant');

it('a Chat client’s two assistant messages: two paragraphs', async () => {
  await clients.openai.chat.completions.create({
    model: 'up-chat',
    messages: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Second answer.' }] },
      { role: 'user', content: 'ok' },
    ],
  });
  expect(sentAssistant()).toEqual({ role: 'assistant', content: 'First answer.\n\nSecond answer.' });
});

it('a Responses client’s two assistant message items: two paragraphs', async () => {
  await clients.openai.responses.create({
    model: 'up-chat',
    store: false,
    input: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'assistant', content: 'Second answer.' },
      { role: 'user', content: 'ok' },
    ],
  });
  expect(sentAssistant()!.content).toBe('First answer.\n\nSecond answer.');
});

it('an Anthropic client’s two assistant messages are two paragraphs; one message’s two blocks join', async () => {
  await clients.anthropic.messages.create({
    model: 'up-chat',
    max_tokens: 50,
    messages: [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'The grass ' },
          { type: 'text', text: 'is green.' },
        ],
      },
      { role: 'assistant', content: 'Second answer.' },
      { role: 'user', content: 'ok' },
    ],
  });
  expect(sentAssistant()!.content).toBe('The grass is green.\n\nSecond answer.');
});

it('a Gemini client’s two model contents are two paragraphs; one content’s parts join', async () => {
  await clients.google.models.generateContent({
    model: 'up-chat',
    contents: [
      { role: 'user', parts: [{ text: 'q' }] },
      { role: 'model', parts: [{ text: 'First ' }, { text: 'answer.' }] },
      { role: 'model', parts: [{ text: 'Second answer.' }] },
      { role: 'user', parts: [{ text: 'ok' }] },
    ],
  });
  expect(sentAssistant()!.content).toBe('First answer.\n\nSecond answer.');
});
