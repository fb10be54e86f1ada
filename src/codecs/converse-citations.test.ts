/**
 * Bedrock Converse citations reach an Anthropic client: the Bedrock reader keeps them as
 * `bedrock.citations` (AWS's `{title, sourceContent, location}`), and the Anthropic codec sends them
 * in Claude's form (`anthropicCitations`): documentChar → char_location, documentPage →
 * page_location, documentChunk → content_block_location, whole and streamed (`citations_delta`s
 * before the block's stop). They were dropped: the encoder read only `anthropic.citations`.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../core/events.ts';
import type { JsonValue } from '../core/json.ts';
import { anthropicCitationsKey, bedrockCitationsKey, type MetadataMap } from '../core/metadata.ts';
import type { CanonicalResponse } from '../core/request.ts';
import { emptyUsage } from '../core/usage.ts';
import { anthropicCitations } from './citations.ts';
import { codecs } from './index.ts';
import { taggedOpaque } from './opaque.ts';

const converse: JsonValue[] = [
  {
    title: 'Annual report',
    sourceContent: [{ text: 'Revenue grew ' }, { text: '12%' }],
    location: { documentChar: { documentIndex: 0, start: 10, end: 26 } },
  },
  {
    title: 'Slides',
    sourceContent: [{ text: 'p2' }],
    location: { documentPage: { documentIndex: 1, start: 2, end: 3 } },
  },
  { sourceContent: [{ text: 'c' }], location: { documentChunk: { documentIndex: 2, start: 0, end: 1 } } },
  { location: { web: { url: 'https://example.com', domain: 'example.com' } } },
];
const claude = [
  {
    type: 'char_location',
    cited_text: 'Revenue grew 12%',
    document_index: 0,
    document_title: 'Annual report',
    start_char_index: 10,
    end_char_index: 26,
  },
  {
    type: 'page_location',
    cited_text: 'p2',
    document_index: 1,
    document_title: 'Slides',
    start_page_number: 2,
    end_page_number: 3,
  },
  {
    type: 'content_block_location',
    cited_text: 'c',
    document_index: 2,
    document_title: null,
    start_block_index: 0,
    end_block_index: 1,
  },
];
const metadata: MetadataMap = { [bedrockCitationsKey]: converse };
const response = {
  content: [{ type: 'text', text: 'revenue grew 12%.', metadata }],
  finishReason: 'completed',
  usage: emptyUsage(),
} as unknown as CanonicalResponse;

describe('Converse citations for an Anthropic client', () => {
  it('document locations in Claude’s form; a web location (no Claude document form) left out', () => {
    expect(anthropicCitations(metadata)).toEqual(claude);
    expect(anthropicCitations({ [anthropicCitationsKey]: [{ type: 'x' }], ...metadata })).toEqual([
      { type: 'x' },
    ]);
    expect(anthropicCitations(undefined)).toEqual([]);
  });

  it('a whole reply: the text block carries them', () => {
    const body = codecs['anthropic-messages'].encodeResponse(response, {
      model: 'claude',
      opaque: taggedOpaque,
    }) as {
      content: unknown[];
    };
    expect(body.content).toEqual([{ type: 'text', text: 'revenue grew 12%.', citations: claude }]);
  });

  it('a stream: one citations_delta each before the block stops', () => {
    const events: StreamEvent[] = [
      { type: 'message-start', requestId: 'req_1' as never, model: 'bedrock:claude', provider: 'bedrock' },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'revenue grew 12%.' },
      { type: 'text-end', index: 0, metadata },
      { type: 'finish', response },
    ];
    const encoder = codecs['anthropic-messages'].createStreamEncoder({
      model: 'claude',
      opaque: taggedOpaque,
    });
    const frames = events
      .flatMap((event) => encoder.event(event))
      .map(
        (frame) =>
          JSON.parse('data' in frame ? frame.data : '{}') as {
            delta?: { type?: string; citation?: unknown };
          },
      );
    const cited = frames
      .filter((frame) => frame.delta?.type === 'citations_delta')
      .map((frame) => frame.delta?.citation);
    expect(cited).toEqual(claude);
  });
});
