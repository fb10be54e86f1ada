/**
 * How a reply's several reasoning parts reach a client with fewer places for them: a Chat client's
 * one `reasoning_content` string has a blank line between parts (whole and streamed alike, as a
 * Responses upstream's summary parts are joined in one canonical part), and a Responses client's
 * reply, whole or streamed, keeps the summary parts a Responses upstream gave apart. Found by a
 * prober: the Chat string ran the parts together ("first thought.second thought.").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { chatStreamText, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(() => harness.close());

const twoThoughts = () =>
  harness.emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'first thought.', signature: 'S1' },
      { type: 'reasoning', text: 'second thought.', signature: 'S2' },
      { type: 'text', text: 'answer' },
    ],
  } as EmulatorScript);

/** The streamed `reasoning_content` deltas of a Chat SSE body, joined. */
function streamedReasoning(body: string): string {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map(
      (line) =>
        (JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { reasoning_content?: string } }> })
          .choices[0]?.delta?.reasoning_content ?? '',
    )
    .join('');
}

describe('several reasoning parts of one reply', () => {
  for (const model of ['up-anthropic', 'up-gemini'])
    for (const stream of [false, true])
      it(`Chat client (${model}, stream ${stream}): a blank line between the parts`, async () => {
        twoThoughts();
        const response = await harness.post('/v1/chat/completions', {
          model,
          stream,
          reasoning_effort: 'low',
          messages: [{ role: 'user', content: 'hi' }],
        });
        const text = await response.text();
        expect(response.status, text).toBe(200);
        const reasoning = stream
          ? streamedReasoning(text)
          : (JSON.parse(text) as { choices: Array<{ message: { reasoning_content?: string } }> }).choices[0]!
              .message.reasoning_content;
        expect(reasoning).toBe('first thought.\n\nsecond thought.');
        if (stream) expect(chatStreamText(text)).toBe('answer');
      });

  it('Responses client of a Responses upstream: the summary parts stay apart in a whole reply', async () => {
    harness.emulator.enqueue({
      type: 'json',
      body: {
        id: 'resp_1',
        object: 'response',
        created_at: 1,
        status: 'completed',
        model: 'gpt-5-mini',
        output: [
          {
            id: 'rs_1',
            type: 'reasoning',
            encrypted_content: 'ENC1',
            summary: [
              { type: 'summary_text', text: '**Plan**\nA.' },
              { type: 'summary_text', text: '**Check**\nB.' },
            ],
          },
          {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'hi', annotations: [] }],
          },
        ],
        usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      },
    } as EmulatorScript);
    const response = await harness.post('/v1/responses', {
      model: 'up-responses',
      input: 'hi',
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const json = (await response.json()) as { output: Array<{ type: string; summary?: unknown }> };
    expect(response.status, JSON.stringify(json)).toBe(200);
    expect(json.output[0]!.summary).toEqual([
      { type: 'summary_text', text: '**Plan**\nA.' },
      { type: 'summary_text', text: '**Check**\nB.' },
    ]);
  });
});

/** A Responses upstream's stream of one reasoning item of two summary parts, then the answer. */
function twoSummaryPartsStreamed(): EmulatorScript {
  const response = { id: 'resp_1', object: 'response', created_at: 1, model: 'gpt-5-mini', output: [] };
  const reasoning = { id: 'rs_1', type: 'reasoning', summary: [] };
  const at = { item_id: 'rs_1', output_index: 0 };
  const parts = ['**Plan**\nA.', '**Check**\nB.'];
  const summaryPart = (index: number) => [
    {
      type: 'response.reasoning_summary_part.added',
      ...at,
      summary_index: index,
      part: { type: 'summary_text', text: '' },
    },
    {
      type: 'response.reasoning_summary_text.delta',
      ...at,
      summary_index: index,
      delta: parts[index]!.slice(0, 4),
    },
    {
      type: 'response.reasoning_summary_text.delta',
      ...at,
      summary_index: index,
      delta: parts[index]!.slice(4),
    },
    { type: 'response.reasoning_summary_text.done', ...at, summary_index: index, text: parts[index] },
    {
      type: 'response.reasoning_summary_part.done',
      ...at,
      summary_index: index,
      part: { type: 'summary_text', text: parts[index] },
    },
  ];
  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'hi', annotations: [] }],
  };
  const done = {
    ...reasoning,
    encrypted_content: 'ENC1',
    summary: parts.map((text) => ({ type: 'summary_text', text })),
  };
  const events = [
    { type: 'response.created', response: { ...response, status: 'in_progress' } },
    { type: 'response.output_item.added', output_index: 0, item: reasoning },
    ...summaryPart(0),
    ...summaryPart(1),
    { type: 'response.output_item.done', output_index: 0, item: done },
    {
      type: 'response.output_item.added',
      output_index: 1,
      item: { ...message, status: 'in_progress', content: [] },
    },
    { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'hi' },
    { type: 'response.output_item.done', output_index: 1, item: message },
    {
      type: 'response.completed',
      response: {
        ...response,
        status: 'completed',
        output: [done, message],
        usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      },
    },
  ];
  return { type: 'sse', events: events.map((data) => ({ event: data.type, data })) } as EmulatorScript;
}

describe('a Responses upstream’s summary parts, streamed', () => {
  it('Responses client: one summary part each, added and done with its own text', async () => {
    harness.emulator.enqueue(twoSummaryPartsStreamed());
    const response = await harness.post('/v1/responses', {
      model: 'up-responses',
      input: 'hi',
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown> & { type: string });
    const summaryEvents = events
      .filter((event) => event.type.startsWith('response.reasoning_summary'))
      .map(({ type, summary_index, delta, text: done }) => ({ type, summary_index, delta, text: done }));
    expect(summaryEvents).toEqual(
      [
        { type: 'response.reasoning_summary_part.added', summary_index: 0 },
        { type: 'response.reasoning_summary_text.delta', summary_index: 0, delta: '**Pl' },
        { type: 'response.reasoning_summary_text.delta', summary_index: 0, delta: 'an**\nA.' },
        { type: 'response.reasoning_summary_text.done', summary_index: 0, text: '**Plan**\nA.' },
        { type: 'response.reasoning_summary_part.done', summary_index: 0 },
        { type: 'response.reasoning_summary_part.added', summary_index: 1 },
        { type: 'response.reasoning_summary_text.delta', summary_index: 1, delta: '**Ch' },
        { type: 'response.reasoning_summary_text.delta', summary_index: 1, delta: 'eck**\nB.' },
        { type: 'response.reasoning_summary_text.done', summary_index: 1, text: '**Check**\nB.' },
        { type: 'response.reasoning_summary_part.done', summary_index: 1 },
      ].map((event) => ({ delta: undefined, text: undefined, ...event })),
    );
    const itemDone = events.find(
      (event) =>
        event.type === 'response.output_item.done' && (event.item as { type: string }).type === 'reasoning',
    )!;
    expect((itemDone.item as { summary: unknown }).summary).toEqual([
      { type: 'summary_text', text: '**Plan**\nA.' },
      { type: 'summary_text', text: '**Check**\nB.' },
    ]);
  });

  it('Chat client: one reasoning_content, the parts a blank line apart, as before', async () => {
    harness.emulator.enqueue(twoSummaryPartsStreamed());
    const response = await harness.post('/v1/chat/completions', {
      model: 'up-responses',
      stream: true,
      reasoning_effort: 'low',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(streamedReasoning(text)).toBe('**Plan**\nA.\n\n**Check**\nB.');
    expect(chatStreamText(text)).toBe('hi');
  });
});
