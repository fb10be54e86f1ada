/**
 * Arrays of any length a client or an upstream sends are served, not a 500: past ~125,000 items a
 * `push(...items)` spread throws `RangeError: Maximum call stack size exceeded` in V8, so every
 * append of a client's or upstream's array goes through `pushAll` (core/arrays.ts). A client's
 * message of 150,000 parts (merged into the message before it, to every upstream protocol) and an
 * upstream's 200,000 citations.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';
import { responsesBody } from '../support/openai-wire.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const many = 150_000;

it.each(['up-anthropic', 'up-gemini', 'up-chat'])(
  'a Chat client’s two user messages, the second of 150,000 parts, reach %s merged, and are answered',
  async (model) => {
    harness.emulator.enqueue(scriptedText('Read them all.'));
    const parts = Array.from({ length: many }, () => ({ type: 'text', text: 'b' }));
    const response = await harness.post('/v1/chat/completions', {
      model,
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: parts },
      ],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toBe('Read them all.');
  },
);

it('an upstream’s 150,000 citations reach a Chat client, and the text with them', async () => {
  const count = 150_000;
  const annotations = Array.from({ length: count }, (_, index) => ({
    type: 'url_citation',
    start_index: 0,
    end_index: 4,
    url: `https://example.com/${index}`,
    title: 'T',
  }));
  harness.emulator.enqueue({
    type: 'json',
    body: responsesBody([{ type: 'output_text', text: 'Cite', annotations }]),
  });
  const response = await harness.post('/v1/chat/completions', {
    model: 'up-responses',
    messages: [{ role: 'user', content: 'x' }],
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    choices: { message: { content: string; annotations: unknown[] } }[];
  };
  expect(body.choices[0]!.message.content).toBe('Cite');
  expect(body.choices[0]!.message.annotations).toHaveLength(count);
});
