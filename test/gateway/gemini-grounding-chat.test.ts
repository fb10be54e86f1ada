/**
 * A Gemini upstream's Google Search grounding reaches a Chat Completions client as `url_citation`
 * annotations (`message.annotations` whole; streamed, one annotations delta just before the
 * finish chunk, as the grounding arrives with Gemini's last chunk), the segments' UTF-8 byte
 * offsets turned into the character offsets Chat counts.
 */
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const first = 'Spain won Euro 2024 — défeating England 2–1.';
const second = 'Olmo starred 🌟 in Berlin.';
const text = `${first} ${second}`;
const bytes = (value: string) => Buffer.byteLength(value, 'utf8');
const groundingMetadata = {
  webSearchQueries: ['euro 2024 final'],
  groundingChunks: [
    { web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AAA', title: 'uefa.com' } },
    { web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/BBB', title: 'bbc.com' } },
  ],
  groundingSupports: [
    { segment: { endIndex: bytes(first), text: first }, groundingChunkIndices: [0], confidenceScores: [0.9] },
    {
      segment: { startIndex: bytes(`${first} `), endIndex: bytes(text), text: second },
      groundingChunkIndices: [1],
      confidenceScores: [0.8],
    },
  ],
};
const start = text.indexOf(second);
const expected = [
  {
    type: 'url_citation',
    url_citation: {
      start_index: 0,
      end_index: first.length,
      url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AAA',
      title: 'uefa.com',
    },
  },
  {
    type: 'url_citation',
    url_citation: {
      start_index: start,
      end_index: text.length,
      url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/BBB',
      title: 'bbc.com',
    },
  },
];
const usageMetadata = { promptTokenCount: 3, candidatesTokenCount: 20, totalTokenCount: 23 };

it('whole: the grounding is message.annotations, character offsets', async () => {
  harness.emulator.enqueue({
    type: 'json',
    body: {
      candidates: [
        { content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0, groundingMetadata },
      ],
      usageMetadata,
    },
  });
  const completion = await createClients(harness.server.url).openai.chat.completions.create({
    model: 'up-gemini',
    messages: [{ role: 'user', content: 'Who won Euro 2024?' }],
  });
  expect(completion.choices[0]!.message.content).toBe(text);
  expect(completion.choices[0]!.message.annotations).toEqual(expected);
});

it('streamed: the grounding of Gemini’s last chunk is one annotations delta just before the finish chunk', async () => {
  harness.emulator.enqueue({
    type: 'sse',
    events: [
      { data: { candidates: [{ content: { role: 'model', parts: [{ text: `${first} ` }] }, index: 0 }] } },
      {
        data: {
          candidates: [
            {
              content: { role: 'model', parts: [{ text: second }] },
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
  const stream = await createClients(harness.server.url).openai.chat.completions.create({
    model: 'up-gemini',
    messages: [{ role: 'user', content: 'Who won Euro 2024?' }],
    stream: true,
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const received of stream) chunks.push(received);
  const annotationsOf = (received: ChatCompletionChunk) =>
    (received.choices[0]?.delta as { annotations?: unknown[] } | undefined)?.annotations;
  const carrying = chunks.filter((received) => annotationsOf(received) !== undefined);
  expect(carrying).toHaveLength(1);
  expect(annotationsOf(carrying[0]!)).toEqual(expected);
  const finish = chunks.findIndex((received) => received.choices[0]?.finish_reason === 'stop');
  expect(chunks.indexOf(carrying[0]!)).toBe(finish - 1);
  expect(chunks.map((received) => received.choices[0]?.delta.content ?? '').join('')).toBe(text);
});

it('whole, several parts: a segment counted from the start of its part (partIndex) is cited in that part', async () => {
  const parts = [
    { text: 'Thinking.', thought: true },
    { text: 'Paris: It is sunny. ' },
    { text: 'Lyon: It is sunny.' },
  ];
  const sunny = 'It is sunny.';
  const lyonStart = bytes('Lyon: ');
  harness.emulator.enqueue({
    type: 'json',
    body: {
      candidates: [
        {
          content: { role: 'model', parts },
          finishReason: 'STOP',
          index: 0,
          groundingMetadata: {
            groundingChunks: [{ web: { uri: 'https://lyon.example', title: 'Lyon' } }],
            groundingSupports: [
              {
                segment: {
                  partIndex: 2,
                  startIndex: lyonStart,
                  endIndex: lyonStart + bytes(sunny),
                  text: sunny,
                },
                groundingChunkIndices: [0],
              },
            ],
          },
        },
      ],
      usageMetadata,
    },
  });
  const completion = await createClients(harness.server.url).openai.chat.completions.create({
    model: 'up-gemini',
    messages: [{ role: 'user', content: 'Weather?' }],
  });
  const content = completion.choices[0]!.message.content!;
  expect(content).toBe('Paris: It is sunny. Lyon: It is sunny.');
  const at = content.lastIndexOf(sunny);
  expect(completion.choices[0]!.message.annotations).toEqual([
    {
      type: 'url_citation',
      url_citation: {
        start_index: at,
        end_index: at + sunny.length,
        url: 'https://lyon.example',
        title: 'Lyon',
      },
    },
  ]);
});
