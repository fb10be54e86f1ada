/** Gemini grounding as url_citations: UTF-8 byte segments become character offsets. */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../core/json.ts';
import type { MetadataMap } from '../core/metadata.ts';
import { groundingCitations } from './grounding.ts';

const first = 'Spain won Euro 2024 — défeating England 2–1 in the final.';
const second = 'Olmo starred 🌟 in Berlin.';
const text = `${first} ${second}`;
const bytes = (value: string) => Buffer.byteLength(value, 'utf8');
const chunks: JsonValue[] = [
  { web: { uri: 'https://grounding.example/uefa', title: 'uefa.com' } },
  { web: { uri: 'https://grounding.example/bbc', title: 'bbc.com' } },
  { retrievedContext: { uri: 'gs://bucket/doc', title: 'not a web page' } },
];
const citation = (start: number, end: number, url: string, title: string) => ({
  type: 'url_citation',
  start_index: start,
  end_index: end,
  url,
  title,
});

describe('groundingCitations', () => {
  it('converts byte segments to character offsets, one citation per web source', () => {
    const secondByte = bytes(`${first} `);
    expect(secondByte).toBeGreaterThan(text.indexOf(second)); // multi-byte characters before it
    const metadata: MetadataMap = {
      'gemini.groundingMetadata': {
        groundingChunks: chunks,
        groundingSupports: [
          // proto3 leaves startIndex 0 out.
          { segment: { endIndex: bytes(first), text: first }, groundingChunkIndices: [0, 1] },
          {
            segment: { startIndex: secondByte, endIndex: secondByte + bytes(second), text: second },
            groundingChunkIndices: [1, 2, 7],
          },
        ],
      },
    };
    const start = text.indexOf(second);
    expect(groundingCitations(metadata, text)).toEqual([
      citation(0, first.length, 'https://grounding.example/uefa', 'uefa.com'),
      citation(0, first.length, 'https://grounding.example/bbc', 'bbc.com'),
      citation(start, start + second.length, 'https://grounding.example/bbc', 'bbc.com'),
    ]);
  });

  it('a segment without its text is placed by its byte offsets alone', () => {
    const secondByte = bytes(`${first} `);
    const metadata: MetadataMap = {
      'gemini.groundingMetadata': {
        groundingChunks: chunks,
        groundingSupports: [
          { segment: { startIndex: secondByte, endIndex: bytes(text) }, groundingChunkIndices: [0] },
          // Inside a multi-byte character: no character offset, left out.
          {
            segment: { startIndex: 1, endIndex: bytes('Spain won Euro 2024 —') - 1 },
            groundingChunkIndices: [0],
          },
        ],
      },
    };
    expect(groundingCitations(metadata, text)).toEqual([
      citation(text.indexOf(second), text.length, 'https://grounding.example/uefa', 'uefa.com'),
    ]);
  });

  it('a segment whose offsets do not give its text is placed by its text; one that cannot be placed is left out', () => {
    const metadata: MetadataMap = {
      'gemini.groundingMetadata': {
        groundingChunks: chunks,
        groundingSupports: [
          { segment: { startIndex: 0, endIndex: bytes(second), text: second }, groundingChunkIndices: [0] },
          { segment: { startIndex: 0, endIndex: 3, text: 'not in the reply' }, groundingChunkIndices: [0] },
        ],
      },
    };
    const start = text.indexOf(second);
    expect(groundingCitations(metadata, text)).toEqual([
      citation(start, start + second.length, 'https://grounding.example/uefa', 'uefa.com'),
    ]);
  });

  it('nothing without grounding, supports or text', () => {
    expect(groundingCitations(undefined, text)).toEqual([]);
    expect(groundingCitations({ 'gemini.groundingMetadata': { webSearchQueries: ['x'] } }, text)).toEqual([]);
    expect(
      groundingCitations(
        { 'gemini.groundingMetadata': { groundingChunks: chunks, groundingSupports: [] } },
        text,
      ),
    ).toEqual([]);
  });

  it('a segment whose offsets do not hold its text is looked up from where they put it', () => {
    const repeated = 'It is sunny. Paris: It is sunny.';
    const at = repeated.lastIndexOf('It is sunny.');
    const metadata: MetadataMap = {
      'gemini.groundingMetadata': {
        groundingChunks: chunks,
        groundingSupports: [
          { segment: { startIndex: at, text: 'It is sunny.' }, groundingChunkIndices: [0] },
        ],
      },
    };
    expect(groundingCitations(metadata, repeated)).toEqual([
      citation(at, at + 12, 'https://grounding.example/uefa', 'uefa.com'),
    ]);
  });

  it('offsets from the start of their part (partIndex) are placed by the reply’s part starts', () => {
    const parts = ['Paris: It is sunny. ', 'Lyon: 🌟 It is sunny.'];
    const whole = parts.join('');
    const at = whole.lastIndexOf('It is sunny.');
    const startByte = bytes('Lyon: 🌟 ');
    const segment = { partIndex: 1, startIndex: startByte, endIndex: startByte + 12, text: 'It is sunny.' };
    const metadata: MetadataMap = {
      'gemini.partStarts': [0, parts[0]!.length],
      'gemini.groundingMetadata': {
        groundingChunks: chunks,
        groundingSupports: [{ segment, groundingChunkIndices: [1] }],
      },
    };
    expect(groundingCitations(metadata, whole)).toEqual([
      citation(at, at + 12, 'https://grounding.example/bbc', 'bbc.com'),
    ]);
  });
});
