/**
 * A Gemini client's `citationMetadata` counts each cited span in UTF-8 bytes of the candidate's
 * text, as Gemini does, whatever the text holds: each offset is what `Buffer.byteLength` of the
 * text before it gives, counted in one walk of the text for all the citations.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalResponse } from '../../core/request.ts';
import { citationMetadata } from './citations.ts';

const text = 'Paris é 🌍 中文 — plain \ud800 lone; end';

function citedAt(spans: Array<[number, number]>) {
  const annotations = spans.map(([start, end], index) => ({
    type: 'url_citation',
    start_index: start,
    end_index: end,
    url: `https://example.com/${index}`,
    title: `t${index}`,
  }));
  const response = {
    content: [{ type: 'text', text, metadata: { 'openai.annotations': annotations } }],
  } as unknown as Pick<CanonicalResponse, 'content' | 'metadata'>;
  return citationMetadata(response) as { citationSources: Array<Record<string, unknown>> } | undefined;
}

describe('citationMetadata byte offsets', () => {
  it('every span in bytes of UTF-8, multi-byte characters, a split pair and spans past the end included', () => {
    const emoji = text.indexOf('🌍');
    const spans: Array<[number, number]> = [
      [0, 5],
      [6, emoji + 2],
      [emoji + 1, text.length],
      [3, text.length + 10],
      [text.indexOf('\ud800'), text.length - 1],
    ];
    const sources = citedAt(spans)?.citationSources ?? [];
    const bytes = (offset: number) => Buffer.byteLength(text.slice(0, Math.min(offset, text.length)), 'utf8');
    expect(sources.map((source) => [source.startIndex, source.endIndex])).toEqual(
      spans.map(([start, end]) => [bytes(start), bytes(end)]),
    );
  });
});
