/**
 * An Anthropic client's prefill (its request ends with an assistant message) toward an OpenAI Chat
 * upstream, which cannot continue it: the message goes as an earlier turn with the WARN, and the
 * reply's repeat of the prefill is cut, so the client's prefill + reply is the JSON it asked for.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const request = {
  model: 'up-chat',
  max_tokens: 100,
  messages: [
    { role: 'user' as const, content: 'Give me {"a":1} as JSON.' },
    { role: 'assistant' as const, content: '{' },
  ],
};
const warning = 'sent the trailing assistant message as an earlier turn: the provider cannot continue it';

it('the reply continues the prefill, whole and streamed, with the WARN', async () => {
  const { anthropic } = createClients(harness.server.url);
  for (const stream of [false, true]) {
    const before = harness.logger.entries.length;
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: '{"a":1}' }],
      chunkSize: 1,
    });
    const message = stream
      ? await anthropic.messages.stream(request).finalMessage()
      : await anthropic.messages.create(request);
    expect(`{${message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')}`).toBe(
      '{"a":1}',
    );
    const sent = harness.emulator.requests.at(-1)!.body as { messages: Array<{ role: string }> };
    expect(sent.messages.at(-1)).toMatchObject({ role: 'assistant' });
    expect(harness.logger.entries.slice(before).map((entry) => entry.message)).toContain(warning);
  }
});
