/**
 * A system message a client sends after the conversation began: in place toward upstreams that take
 * instruction messages anywhere (OpenAI Chat Completions and Responses); joined into the one
 * system prompt of Anthropic and Gemini, with a WARN naming the message.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import { createClients, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
let client: OpenAI;

beforeAll(async () => {
  harness = await startGatewayHarness();
  client = createClients(harness.server.url).openai;
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const moved = 'moved a mid-conversation instruction into the system prompt';

/** A Chat client's conversation whose second system message (index 3) comes after a turn. */
async function send(model: string): Promise<unknown> {
  harness.emulator.enqueue(scriptedText('Bonjour.'));
  await client.chat.completions.create({
    model,
    messages: [
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'system', content: 'From now on, answer in French.' },
      { role: 'user', content: 'How are you?' },
    ],
  });
  return harness.emulator.requests.at(-1)!.body;
}

function movedWarnings(before: number) {
  return harness.logger.entries.slice(before).filter((entry) => entry.message === moved);
}

describe('a mid-conversation system message', () => {
  it('stays in place toward an OpenAI Chat upstream, without a WARN', async () => {
    const before = harness.logger.entries.length;
    const body = (await send('up-chat')) as { messages: Array<{ role: string; content: unknown }> };
    expect(body.messages.map((message) => [message.role, message.content])).toEqual([
      ['developer', 'Be terse.'],
      ['user', 'Hi'],
      ['assistant', 'Hello.'],
      ['developer', 'From now on, answer in French.'],
      ['user', 'How are you?'],
    ]);
    expect(movedWarnings(before)).toEqual([]);
  });

  it('stays in place toward an OpenAI Responses upstream: the leading one is the instructions', async () => {
    const body = (await send('up-responses')) as {
      instructions?: string;
      input: Array<{ role?: string; content?: unknown }>;
    };
    expect(body.instructions).toBe('Be terse.');
    expect(body.input.map((item) => item.role)).toEqual(['user', 'assistant', 'system', 'user']);
    expect(body.input[2]!.content).toEqual([{ type: 'input_text', text: 'From now on, answer in French.' }]);
  });

  it.each([
    ['Anthropic', 'up-anthropic', (body: { system?: unknown }) => body.system],
    [
      'Gemini',
      'up-gemini',
      (body: { systemInstruction?: { parts: Array<{ text: string }> } }) =>
        body.systemInstruction?.parts.map((part) => part.text).join(''),
    ],
  ] as const)(
    'is joined into the %s system prompt, with a WARN naming its index',
    async (_, model, systemOf) => {
      const before = harness.logger.entries.length;
      const body = (await send(model)) as never;
      expect(systemOf(body)).toBe('Be terse.\n\nFrom now on, answer in French.');
      expect(movedWarnings(before)).toEqual([
        {
          message: moved,
          fields: expect.objectContaining({
            itemIndex: 3,
            kind: 'system',
            reason: 'the provider takes one system prompt, before the conversation',
          }) as unknown,
        },
      ]);
    },
  );
});
