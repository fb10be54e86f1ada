/**
 * Citations reach a streamed Chat Completions client as OpenAI's search models send them: an
 * `annotations` delta (`choices[0].delta.annotations: [{type: 'url_citation', url_citation:
 * {url, title, start_index, end_index}}]`) after the text it cites, before the finish chunk — from
 * a Responses upstream's `url_citation`s and an Anthropic upstream's web search citations, the
 * same annotations a non-streamed reply gives in `message.annotations`.
 */
import { join } from 'node:path';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { citedUrls, readRecorded, recordedDir } from '../support/fixtures.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';
import { flatCitation, responsesBody } from '../support/openai-wire.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

type Script = Parameters<GatewayHarness['emulator']['enqueue']>[0];

const citation = (start: number, end: number, url: string) => flatCitation(start, end, url, 'Docs');

/** The raw chunks of a streamed Chat reply, as the official SDK yields them. */
async function streamedChunks(model: string, script: Script): Promise<ChatCompletionChunk[]> {
  harness.emulator.enqueue(script);
  const stream = await createClients(harness.server.url).openai.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'x' }],
    stream: true,
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** The `annotations` of the chunks' deltas (a field OpenAI sends that the SDK does not type). */
const annotationsOf = (chunk: ChatCompletionChunk): unknown[] | undefined =>
  (chunk.choices[0]?.delta as { annotations?: unknown[] } | undefined)?.annotations;

async function wholeAnnotations(model: string, script: Script): Promise<unknown[]> {
  harness.emulator.enqueue(script);
  const completion = await createClients(harness.server.url).openai.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'x' }],
  });
  return completion.choices[0]!.message.annotations ?? [];
}

it('a Responses upstream’s url_citations reach a streamed Chat client as an annotations delta after the text, before the finish chunk', async () => {
  const body = responsesBody([
    { type: 'output_text', text: 'See docs.', annotations: [citation(4, 8, 'https://docs.example.com')] },
    { type: 'output_text', text: 'ab', annotations: [citation(0, 2, 'https://second.example.com')] },
  ]);
  const chunks = await streamedChunks('up-responses', { type: 'json', body });
  const carrying = chunks.filter((chunk) => annotationsOf(chunk) !== undefined);
  expect(carrying.flatMap((chunk) => annotationsOf(chunk)!)).toEqual([
    {
      type: 'url_citation',
      url_citation: { start_index: 4, end_index: 8, url: 'https://docs.example.com', title: 'Docs' },
    },
    // The second part's offsets count from the start of the whole message text.
    {
      type: 'url_citation',
      url_citation: { start_index: 9, end_index: 11, url: 'https://second.example.com', title: 'Docs' },
    },
  ]);
  const first = chunks.indexOf(carrying[0]!);
  const text = chunks
    .slice(0, first)
    .map((chunk) => chunk.choices[0]?.delta.content ?? '')
    .join('');
  expect(text).toBe('See docs.');
  const finish = chunks.findIndex((chunk) => chunk.choices[0]?.finish_reason === 'stop');
  expect(chunks.indexOf(carrying.at(-1)!)).toBeLessThan(finish);
  // Streamed and whole give the same annotations.
  expect(carrying.flatMap((chunk) => annotationsOf(chunk)!)).toEqual(
    await wholeAnnotations('up-responses', { type: 'json', body }),
  );
});

it('a recorded Responses web search: every url_citation reaches a streamed Chat client, in order, within the text', async () => {
  const file = join(recordedDir, 'openai/responses/openai-web-search-tool.1.chunks.txt');
  // The recording's message has one text part: its offsets are the Chat message's.
  const recorded = readRecorded(file)
    .split('\n')
    .filter((line) => line.includes('"response.output_text.annotation.added"'))
    .map((line) => (JSON.parse(line) as { annotation: ReturnType<typeof citation> }).annotation);
  expect(recorded).toHaveLength(12);
  const chunks = await streamedChunks('up-responses', { type: 'replay', file, enforce: false });
  const streamed = chunks.flatMap((chunk) => annotationsOf(chunk) ?? []);
  expect(streamed).toEqual(
    recorded.map(({ start_index, end_index, url, title }) => ({
      type: 'url_citation',
      url_citation: { start_index, end_index, url, title },
    })),
  );
  const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
  expect(Math.max(...recorded.map((annotation) => annotation.end_index))).toBeLessThanOrEqual(text.length);
});

it('a recorded Anthropic web search: its cited sources reach a Chat client as url_citations over the cited text, whole and streamed', async () => {
  const file = (extension: string) => join(recordedDir, `anthropic/anthropic-web-search-tool.1.${extension}`);
  const chunks = await streamedChunks('up-anthropic', {
    type: 'replay',
    file: file('chunks.txt'),
    enforce: false,
  });
  type Annotation = {
    type: string;
    url_citation: { start_index: number; end_index: number; url: string; title: string };
  };
  const streamed = chunks.flatMap((chunk) => annotationsOf(chunk) ?? []) as Annotation[];
  const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
  for (const { type, url_citation: cited } of streamed) {
    expect(type).toBe('url_citation');
    expect(cited.title).not.toBe('');
    expect(0 <= cited.start_index && cited.start_index < cited.end_index).toBe(true);
    expect(cited.end_index).toBeLessThanOrEqual(text.length);
  }
  const urls = (annotations: Annotation[]) =>
    new Set(annotations.map(({ url_citation: cited }) => cited.url));
  expect(urls(streamed)).toEqual(citedUrls(readRecorded(file('chunks.txt'))));
  const whole = (await wholeAnnotations('up-anthropic', {
    type: 'replay',
    file: file('json'),
    enforce: false,
  })) as Annotation[];
  expect(whole.length).toBeGreaterThan(0);
  expect(urls(whole)).toEqual(citedUrls(readRecorded(file('json'))));
});

it('a reply without citations sends no annotations delta', async () => {
  const body = responsesBody([{ type: 'output_text', text: 'Plain.', annotations: [] }]);
  const chunks = await streamedChunks('up-responses', { type: 'json', body });
  expect(chunks.filter((chunk) => annotationsOf(chunk) !== undefined)).toEqual([]);
  expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Plain.');
});
