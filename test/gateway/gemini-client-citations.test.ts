/**
 * Another upstream's URL citations reach a Gemini client as `citationMetadata.citationSources`
 * (`startIndex`/`endIndex` in UTF-8 bytes of the candidate's text, `uri`, `title`), whole and on
 * the last streamed chunk: a Responses upstream's `url_citation`s, an Anthropic upstream's web
 * search citations over the text block they cite.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { citedUrls, readRecorded, recordedDir } from '../support/fixtures.ts';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';
import { flatCitation, responsesBody } from '../support/openai-wire.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

type Script = Parameters<GatewayHarness['emulator']['enqueue']>[0];
type Candidate = {
  content: { parts: { text?: string }[] };
  citationMetadata?: { citationSources: Source[] };
};
type Source = { startIndex: number; endIndex: number; uri: string; title: string };
const request = { contents: [{ role: 'user', parts: [{ text: 'x' }] }] };

async function candidates(model: string, script: Script, stream: boolean): Promise<Candidate[]> {
  harness.emulator.enqueue(script);
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  const response = await fetch(`${harness.server.url}/v1beta/models/${model}:${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'client-key' },
    body: JSON.stringify(request),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  const bodies = stream
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)) as { candidates?: Candidate[] })
    : [JSON.parse(text) as { candidates?: Candidate[] }];
  return bodies.flatMap((body) => body.candidates ?? []);
}

const textOf = (list: Candidate[]) =>
  list.flatMap((candidate) => candidate.content.parts.map((part) => part.text ?? '')).join('');
const cited = (list: Candidate[]) =>
  list.flatMap((candidate) => candidate.citationMetadata?.citationSources ?? []);

it('a Responses upstream’s url_citations are citationSources in UTF-8 bytes of the whole text, whole and streamed', async () => {
  const body = responsesBody([
    {
      type: 'output_text',
      text: 'Café docs.',
      annotations: [flatCitation(5, 9, 'https://docs.example.com', 'Docs')],
    },
    {
      type: 'output_text',
      text: 'né ok',
      annotations: [flatCitation(3, 5, 'https://second.example.com', 'Two')],
    },
  ]);
  const expected = [
    // `é` is two bytes: characters 5–9 of "Café docs." are bytes 6–10.
    { startIndex: 6, endIndex: 10, uri: 'https://docs.example.com', title: 'Docs' },
    // The second part starts at character 10 (byte 11); its "ok" (characters 3–5, one `é` before) at bytes 15–17.
    { startIndex: 15, endIndex: 17, uri: 'https://second.example.com', title: 'Two' },
  ];
  const whole = await candidates('up-responses', { type: 'json', body }, false);
  expect(cited(whole)).toEqual(expected);
  const streamed = await candidates('up-responses', { type: 'json', body }, true);
  expect(cited(streamed)).toEqual(expected);
  // On the last chunk only.
  expect(streamed.at(-1)!.citationMetadata?.citationSources).toEqual(expected);
  const text = textOf(streamed);
  expect(Buffer.from(text).subarray(15, 17).toString()).toBe('ok');
});

it('a recorded Anthropic web search: its cited sources reach a Gemini client over the cited text, whole and streamed', async () => {
  const file = (extension: string) => join(recordedDir, `anthropic/anthropic-web-search-tool.1.${extension}`);
  for (const [extension, stream] of [
    ['json', false],
    ['chunks.txt', true],
  ] as const) {
    const list = await candidates(
      'up-anthropic',
      { type: 'replay', file: file(extension), enforce: false },
      stream,
    );
    const sources = cited(list);
    expect(sources.length).toBeGreaterThan(0);
    const bytes = Buffer.byteLength(textOf(list));
    for (const source of sources) {
      expect(source.title).not.toBe('');
      expect(0 <= source.startIndex && source.startIndex < source.endIndex).toBe(true);
      expect(source.endIndex).toBeLessThanOrEqual(bytes);
    }
    expect(new Set(sources.map((source) => source.uri))).toEqual(citedUrls(readRecorded(file(extension))));
  }
});

it('a reply without citations has no citationMetadata', async () => {
  const body = responsesBody([{ type: 'output_text', text: 'Plain.', annotations: [] }]);
  for (const stream of [false, true])
    expect(cited(await candidates('up-responses', { type: 'json', body }, stream))).toEqual([]);
});
