/**
 * What an OpenAI upstream says beside its text reaches an OpenAI client in its own fields: a
 * refusal (Chat's `message.refusal`, a Responses `refusal` part), not ordinary content a client
 * would parse as the answer; `url_citation` annotations (Responses' `annotations`, Chat's
 * `message.annotations`), not an empty list that loses every source.
 */
import { join } from 'node:path';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRecorded, recordedDir } from '../support/fixtures.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';
import { chatChunk as chunk, flatCitation, responsesBody } from '../support/openai-wire.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const chatRefusal = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-5-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: null, refusal: "I'm sorry, I can't help with that." },
      finish_reason: 'stop',
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 8, total_tokens: 18 },
};
const citation = flatCitation(4, 8, 'https://docs.example.com', 'Docs');
const annotated = responsesBody([{ type: 'output_text', text: 'See docs.', annotations: [citation] }]);

it('a Chat upstream’s refusal reaches a Chat client as message.refusal, content null, finish stop', async () => {
  harness.emulator.enqueue({ type: 'json', body: chatRefusal });
  const completion = await createClients(harness.server.url).openai.chat.completions.create({
    model: 'up-chat',
    messages: [{ role: 'user', content: 'bad' }],
  });
  const [choice] = completion.choices;
  expect(choice!.message.refusal).toBe("I'm sorry, I can't help with that.");
  expect(choice!.message.content).toBeNull();
  expect(choice!.finish_reason).toBe('stop');
});

it('a Responses upstream’s refusal part reaches a Responses client as a refusal part', async () => {
  harness.emulator.enqueue({
    type: 'json',
    body: responsesBody([{ type: 'refusal', refusal: 'No can do.' }]),
  });
  const response = await createClients(harness.server.url).openai.responses.create({
    model: 'up-responses',
    input: 'bad',
  });
  const message = response.output.find((item) => item.type === 'message');
  expect(message?.type === 'message' && message.content).toEqual([
    { type: 'refusal', refusal: 'No can do.' },
  ]);
});

it('url_citation annotations reach a Responses client, whole and streamed', async () => {
  const { openai } = createClients(harness.server.url);
  harness.emulator.enqueue({ type: 'json', body: annotated });
  const whole = await openai.responses.create({ model: 'up-responses', input: 'x' });
  const message = whole.output.find((item) => item.type === 'message');
  expect(message?.type === 'message' && message.content[0]).toMatchObject({
    text: 'See docs.',
    annotations: [citation],
  });
  harness.emulator.enqueue({ type: 'json', body: annotated });
  const streamed = await openai.responses.stream({ model: 'up-responses', input: 'x' }).finalResponse();
  const streamedMessage = streamed.output.find((item) => item.type === 'message');
  expect(streamedMessage?.type === 'message' && streamedMessage.content[0]).toMatchObject({
    annotations: [citation],
  });
});

it('url_citation annotations reach a Chat client in Chat’s shape', async () => {
  harness.emulator.enqueue({ type: 'json', body: annotated });
  const completion = await createClients(harness.server.url).openai.chat.completions.create({
    model: 'up-responses',
    messages: [{ role: 'user', content: 'x' }],
  });
  expect(completion.choices[0]!.message.annotations).toEqual([
    {
      type: 'url_citation',
      url_citation: { start_index: 4, end_index: 8, url: 'https://docs.example.com', title: 'Docs' },
    },
  ]);
});

it('a message of several parts keeps each part’s annotations and refusal, not only the last one’s', async () => {
  const { openai } = createClients(harness.server.url);
  const second = { ...citation, start_index: 0, end_index: 2, url: 'https://second.example.com' };
  const twoParts = responsesBody([
    { type: 'output_text', text: 'ab', annotations: [citation] },
    { type: 'output_text', text: 'cd', annotations: [second] },
  ]);
  harness.emulator.enqueue({ type: 'json', body: twoParts });
  const response = await openai.responses.create({ model: 'up-responses', input: 'x' });
  const parts = response.output.flatMap((item) => (item.type === 'message' ? item.content : []));
  expect(parts).toMatchObject([
    { text: 'ab', annotations: [citation] },
    { text: 'cd', annotations: [second] },
  ]);
  harness.emulator.enqueue({ type: 'json', body: twoParts });
  const completion = await openai.chat.completions.create({
    model: 'up-responses',
    messages: [{ role: 'user', content: 'x' }],
  });
  expect(
    completion.choices[0]!.message.annotations!.map((annotation) => annotation.url_citation.url),
  ).toEqual(['https://docs.example.com', 'https://second.example.com']);
  // The second part's offsets count from the start of the whole message text.
  expect(completion.choices[0]!.message.annotations![1]!.url_citation.start_index).toBe(2);
  harness.emulator.enqueue({
    type: 'json',
    body: responsesBody([
      { type: 'refusal', refusal: 'I refuse.' },
      { type: 'output_text', text: ' tail', annotations: [] },
    ]),
  });
  const refused = await openai.chat.completions.create({
    model: 'up-responses',
    messages: [{ role: 'user', content: 'x' }],
  });
  expect(refused.choices[0]!.message).toMatchObject({ refusal: 'I refuse.', content: ' tail' });
});

it('streamed, a Chat upstream’s refusal reaches a Chat client as refusal deltas, and a Responses client as a refusal part', async () => {
  const { openai } = createClients(harness.server.url);
  const refusalStream = () => ({
    type: 'sse' as const,
    events: [
      { data: chunk({ role: 'assistant', content: null, refusal: '' }) },
      { data: chunk({ refusal: "I'm sorry, " }) },
      { data: chunk({ refusal: "I can't help." }) },
      { data: chunk({}, 'stop') },
      { data: '[DONE]' },
    ],
  });
  harness.emulator.enqueue(refusalStream());
  const completion = await openai.chat.completions
    .stream({ model: 'up-chat', messages: [{ role: 'user', content: 'bad' }] })
    .finalChatCompletion();
  expect(completion.choices[0]!.message.refusal).toBe("I'm sorry, I can't help.");
  expect(completion.choices[0]!.message.content).toBeNull();
  expect(completion.choices[0]!.finish_reason).toBe('stop');
  harness.emulator.enqueue(refusalStream());
  const response = await openai.responses.stream({ model: 'up-chat', input: 'bad' }).finalResponse();
  const message = response.output.find((item) => item.type === 'message');
  expect(message?.type === 'message' && message.content).toMatchObject([
    { type: 'refusal', refusal: "I'm sorry, I can't help." },
  ]);
});

it('streamed to a Responses client, each recorded annotation is an output_text.annotation.added event, numbered, before output_text.done', async () => {
  const file = join(recordedDir, 'openai/responses/openai-web-search-tool.1.chunks.txt');
  const recorded = readRecorded(file)
    .split('\n')
    .filter((line) => line.includes('"response.output_text.annotation.added"'))
    .map((line) => JSON.parse(line) as { annotation_index: number; annotation: unknown });
  expect(recorded.length).toBe(12);
  harness.emulator.enqueue({ type: 'replay', file, enforce: false });
  const stream = await createClients(harness.server.url).openai.responses.create({
    model: 'up-responses',
    input: 'news',
    stream: true,
  });
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const message = events.find(
    (event) => event.type === 'response.output_item.added' && event.item.type === 'message',
  ) as Extract<ResponseStreamEvent, { type: 'response.output_item.added' }>;
  const added = events.filter((event) => event.type === 'response.output_text.annotation.added');
  expect(added.map(({ annotation_index, annotation }) => ({ annotation_index, annotation }))).toEqual(
    recorded.map(({ annotation_index, annotation }) => ({ annotation_index, annotation })),
  );
  for (const event of added)
    expect(event).toMatchObject({
      item_id: message.item.id,
      output_index: message.output_index,
      content_index: 0,
    });
  const done = events.findIndex((event) => event.type === 'response.output_text.done');
  expect(events.indexOf(added.at(-1)!)).toBeLessThan(done);
});

it('an OpenAI refusal reaches a Responses client as a completed response with a refusal part, from a Chat or a Responses upstream, whole and streamed', async () => {
  const { openai } = createClients(harness.server.url);
  const upstreams = [
    { model: 'up-chat', body: chatRefusal },
    {
      model: 'up-responses',
      body: responsesBody([{ type: 'refusal', refusal: "I'm sorry, I can't help with that." }]),
    },
  ];
  for (const { model, body } of upstreams) {
    harness.emulator.enqueue({ type: 'json', body });
    const whole = await openai.responses.create({ model, input: 'bad' });
    expect(whole, model).toMatchObject({ status: 'completed', incomplete_details: null });
    expect(whole.output.flatMap((item) => (item.type === 'message' ? item.content : []))).toEqual([
      { type: 'refusal', refusal: "I'm sorry, I can't help with that." },
    ]);
    harness.emulator.enqueue({ type: 'json', body });
    const types: string[] = [];
    for await (const event of await openai.responses.create({ model, input: 'bad', stream: true }))
      types.push(event.type);
    expect(types.at(-1), model).toBe('response.completed');
  }
});

it('a Responses upstream’s refusal reaches a Chat client with finish stop, as a Chat upstream’s does, whole and streamed', async () => {
  const { openai } = createClients(harness.server.url);
  const body = responsesBody([{ type: 'refusal', refusal: 'No can do.' }]);
  harness.emulator.enqueue({ type: 'json', body });
  const whole = await openai.chat.completions.create({
    model: 'up-responses',
    messages: [{ role: 'user', content: 'bad' }],
  });
  expect(whole.choices[0]).toMatchObject({ message: { refusal: 'No can do.' }, finish_reason: 'stop' });
  harness.emulator.enqueue({ type: 'json', body });
  const streamed = await openai.chat.completions
    .stream({ model: 'up-responses', messages: [{ role: 'user', content: 'bad' }] })
    .finalChatCompletion();
  expect(streamed.choices[0]).toMatchObject({ message: { refusal: 'No can do.' }, finish_reason: 'stop' });
});

it('a genuine content filter stays one: incomplete / content_filter for a Responses client, content_filter for a Chat client', async () => {
  const { openai } = createClients(harness.server.url);
  const filtered = {
    ...chatRefusal,
    choices: [{ ...chatRefusal.choices[0]!, finish_reason: 'content_filter' }],
  };
  const anthropicRefusal = join(recordedDir, 'anthropic/anthropic-refusal.json');
  const upstreams = [
    { model: 'up-chat', script: { type: 'json' as const, body: filtered } },
    { model: 'up-anthropic', script: { type: 'replay' as const, file: anthropicRefusal, enforce: false } },
  ];
  for (const { model, script } of upstreams) {
    harness.emulator.enqueue(script);
    const response = await openai.responses.create({ model, input: 'bad' });
    expect(response, model).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
    });
    harness.emulator.enqueue(script);
    const types: string[] = [];
    for await (const event of await openai.responses.create({ model, input: 'bad', stream: true }))
      types.push(event.type);
    expect(types.at(-1), model).toBe('response.incomplete');
    harness.emulator.enqueue(script);
    const completion = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'bad' }],
    });
    expect(completion.choices[0]!.finish_reason, model).toBe('content_filter');
  }
});
