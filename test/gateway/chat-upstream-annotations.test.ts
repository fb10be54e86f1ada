/**
 * A Chat Completions upstream's own citations — OpenAI's search models' `url_citation`
 * annotations, `message.annotations` whole and `delta.annotations` streamed — reach every client
 * the gateway serves: a Chat client in `message.annotations` / an annotations delta, a Responses
 * client on its `output_text`. Sent back in a later turn, they are not echoed to the Chat upstream.
 */
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';
import { chatChunk as chunk, chatCitation, flatCitation } from '../support/openai-wire.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const text = 'Paris is sunny [weather.example].';
const paris = 'https://weather.example/paris';
const whole = {
  type: 'json' as const,
  body: {
    id: 'chatcmpl-s',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-5-mini',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text,
          refusal: null,
          annotations: [chatCitation(15, 32, paris)],
        },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 8, total_tokens: 18 },
  },
};
/** Streamed as the search models do: the annotations in a delta of their own after the text. */
const streamed = () => ({
  type: 'sse' as const,
  events: [
    { data: chunk({ role: 'assistant', content: '' }) },
    { data: chunk({ content: text.slice(0, 10) }) },
    { data: chunk({ content: text.slice(10) }) },
    { data: chunk({ annotations: [chatCitation(15, 32, paris)] }) },
    { data: chunk({}, 'stop') },
    { data: '[DONE]' },
  ],
});

it('a Chat upstream’s annotations reach a Chat client, whole and streamed', async () => {
  const { openai } = createClients(harness.server.url);
  harness.emulator.enqueue(whole);
  const completion = await openai.chat.completions.create({
    model: 'up-chat',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
  });
  expect(completion.choices[0]!.message.content).toBe(text);
  expect(completion.choices[0]!.message.annotations).toEqual([chatCitation(15, 32, paris)]);

  harness.emulator.enqueue(streamed());
  const stream = await openai.chat.completions.create({
    model: 'up-chat',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    stream: true,
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const received of stream) chunks.push(received);
  const annotationsOf = (received: ChatCompletionChunk) =>
    (received.choices[0]?.delta as { annotations?: unknown[] } | undefined)?.annotations;
  expect(chunks.flatMap((received) => annotationsOf(received) ?? [])).toEqual([chatCitation(15, 32, paris)]);
  expect(chunks.map((received) => received.choices[0]?.delta.content ?? '').join('')).toBe(text);
});

it('a Chat upstream’s annotations reach a Responses client on its output_text, whole and streamed', async () => {
  const { openai } = createClients(harness.server.url);
  harness.emulator.enqueue(whole);
  const response = await openai.responses.create({ model: 'up-chat', input: 'Weather in Paris?' });
  const message = response.output.find((item) => item.type === 'message');
  expect(message?.type === 'message' && message.content[0]).toMatchObject({
    type: 'output_text',
    text,
    annotations: [flatCitation(15, 32, paris)],
  });
  harness.emulator.enqueue(streamed());
  const final = await openai.responses
    .stream({ model: 'up-chat', input: 'Weather in Paris?' })
    .finalResponse();
  const streamedMessage = final.output.find((item) => item.type === 'message');
  expect(streamedMessage?.type === 'message' && streamedMessage.content[0]).toMatchObject({
    text,
    annotations: [flatCitation(15, 32, paris)],
  });
});

it('a cited reply sent back in the next turn reaches the Chat upstream without annotations', async () => {
  const { openai } = createClients(harness.server.url);
  harness.emulator.enqueue(whole);
  const first = await openai.responses.create({ model: 'up-chat', input: 'Weather in Paris?' });
  expect(JSON.stringify(first.output)).toContain('url_citation');
  harness.emulator.enqueue(whole);
  await openai.responses.create({
    model: 'up-chat',
    input: [
      { role: 'user', content: 'Weather in Paris?' },
      ...(first.output as never[]),
      { role: 'user', content: 'Thanks' },
    ],
  });
  const body = harness.emulator.requests.at(-1)!.body as { messages: Record<string, unknown>[] };
  expect(body.messages[1]).toMatchObject({ role: 'assistant', content: text });
  expect(JSON.stringify(body)).not.toContain('annotations');
  expect(JSON.stringify(body)).not.toContain('url_citation');

  // A Chat client echoing the message it got (annotations and all), as SDK users do.
  harness.emulator.enqueue(whole);
  const completion = await openai.chat.completions.create({
    model: 'up-chat',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
  });
  expect(completion.choices[0]!.message.annotations).toHaveLength(1);
  harness.emulator.enqueue(whole);
  await openai.chat.completions.create({
    model: 'up-chat',
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      completion.choices[0]!.message,
      { role: 'user', content: 'Thanks' },
    ],
  });
  const echoed = harness.emulator.requests.at(-1)!.body as { messages: Record<string, unknown>[] };
  expect(echoed.messages[1]).toMatchObject({ role: 'assistant', content: text });
  expect(JSON.stringify(echoed)).not.toContain('url_citation');
});
