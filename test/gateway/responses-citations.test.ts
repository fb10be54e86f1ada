/**
 * Citations reach an OpenAI Responses client from every upstream, as `url_citation` annotations on
 * the `output_text` they cite (streamed: `response.output_text.annotation.added`, before the final
 * response): a Gemini upstream's Google Search grounding (UTF-8 byte segments, counted from their
 * part, made character offsets of the part they fall in), and an Anthropic upstream's web search
 * citations (the text block each cites). A Chat client gets the same sources
 * (gemini-grounding-chat.test.ts, chat-stream-annotations.test.ts).
 */
import { join } from 'node:path';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { citedUrls, readRecorded, recordedDir } from '../support/fixtures.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';
import { flatCitation } from '../support/openai-wire.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

type Script = Parameters<GatewayHarness['emulator']['enqueue']>[0];
type Annotated = { type: string; content?: { type: string; text: string; annotations: unknown[] }[] };

const bytes = (value: string) => Buffer.byteLength(value, 'utf8');
const usageMetadata = { promptTokenCount: 3, candidatesTokenCount: 20, totalTokenCount: 23 };
const first = 'Spain won Euro 2024 — défeating England 2–1.';
const second = 'Olmo starred 🌟 in Berlin.';
const uefa = 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AAA';
const bbc = 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/BBB';
/** Two sentences in two parts (a thought between), each grounded, one source for both. */
const parts = [{ text: `${first} ` }, { text: 'Checking.', thought: true }, { text: second }];
const groundingMetadata = {
  groundingChunks: [{ web: { uri: uefa, title: 'uefa.com' } }, { web: { uri: bbc, title: 'bbc.com' } }],
  groundingSupports: [
    { segment: { endIndex: bytes(first), text: first }, groundingChunkIndices: [0] },
    {
      segment: { partIndex: 2, endIndex: bytes(second), text: second },
      groundingChunkIndices: [1],
    },
    // Both sentences in one segment, measured in the whole text: cited on the part it starts in, cut to it.
    {
      segment: { endIndex: bytes(`${first} ${second}`), text: `${first} ${second}` },
      groundingChunkIndices: [1],
    },
  ],
};
/** What each of the reply's two `output_text`s says it cites. */
const expected = [
  [flatCitation(0, first.length, uefa, 'uefa.com'), flatCitation(0, first.length + 1, bbc, 'bbc.com')],
  [flatCitation(0, second.length, bbc, 'bbc.com')],
];

async function whole(model: string, script: Script): Promise<Annotated[]> {
  harness.emulator.enqueue(script);
  const response = await createClients(harness.server.url).openai.responses.create({ model, input: 'x' });
  return response.output as Annotated[];
}

async function streamed(model: string, script: Script): Promise<ResponseStreamEvent[]> {
  harness.emulator.enqueue(script);
  const stream = await createClients(harness.server.url).openai.responses.create({
    model,
    input: 'x',
    stream: true,
  });
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const messages = (output: Annotated[]) => output.filter((item) => item.type === 'message');

it('Gemini grounding, whole: on the output_text of each part it cites, one spanning both parts on the first', async () => {
  const output = await whole('up-gemini', {
    type: 'json',
    body: {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0, groundingMetadata }],
      usageMetadata,
    },
  });
  expect(messages(output).map((item) => item.content![0]!.text)).toEqual([`${first} `, second]);
  expect(messages(output).map((item) => item.content![0]!.annotations)).toEqual(expected);
});

it('Gemini grounding, streamed: one annotation.added per citation before response.completed, which holds them', async () => {
  const events = await streamed('up-gemini', {
    type: 'sse',
    events: [
      { data: { candidates: [{ content: { role: 'model', parts: [parts[0]] }, index: 0 }] } },
      { data: { candidates: [{ content: { role: 'model', parts: [parts[1]] }, index: 0 }] } },
      {
        data: {
          candidates: [
            {
              content: { role: 'model', parts: [parts[2]] },
              finishReason: 'STOP',
              index: 0,
              groundingMetadata,
            },
          ],
          usageMetadata,
        },
      },
    ],
  });
  const added = events.filter((event) => event.type === 'response.output_text.annotation.added');
  // Each announced at its own place in its part's list: the lists rebuilt from the events alone.
  const messageIndices = events.flatMap((event) =>
    event.type === 'response.output_item.done' && event.item.type === 'message' ? [event.output_index] : [],
  );
  const rebuilt = messageIndices.map((): unknown[] => []);
  for (const event of added)
    rebuilt[messageIndices.indexOf(event.output_index)]![event.annotation_index] = event.annotation;
  expect(rebuilt).toEqual(expected);
  const completed = events.findIndex((event) => event.type === 'response.completed');
  expect(events.indexOf(added.at(-1)!)).toBeLessThan(completed);
  const final = events[completed] as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
  expect(messages(final.response.output as Annotated[]).map((item) => item.content![0]!.annotations)).toEqual(
    expected,
  );
});

it('a recorded Anthropic web search: its cited sources reach a Responses client on the text they cite, whole and streamed', async () => {
  const file = (extension: string) => join(recordedDir, `anthropic/anthropic-web-search-tool.1.${extension}`);
  type Cited = { type: string; start_index: number; end_index: number; url: string; title: string };
  const check = (output: Annotated[], recording: string) => {
    const urls = new Set<string>();
    for (const item of messages(output))
      for (const annotation of item.content![0]!.annotations as Cited[]) {
        expect(annotation.type).toBe('url_citation');
        expect(annotation.title).not.toBe('');
        expect(annotation).toMatchObject({ start_index: 0, end_index: item.content![0]!.text.length });
        urls.add(annotation.url);
      }
    expect(urls).toEqual(citedUrls(readRecorded(recording)));
  };
  check(await whole('up-anthropic', { type: 'replay', file: file('json'), enforce: false }), file('json'));
  const events = await streamed('up-anthropic', { type: 'replay', file: file('chunks.txt'), enforce: false });
  const final = events.find((event) => event.type === 'response.completed') as Extract<
    ResponseStreamEvent,
    { type: 'response.completed' }
  >;
  check(final.response.output as Annotated[], file('chunks.txt'));
  const added = events.filter((event) => event.type === 'response.output_text.annotation.added');
  expect(added.length).toBeGreaterThan(0);
});
