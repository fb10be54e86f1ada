/**
 * A response's annotations (metadata `<provider>.annotations` on the response, offsets the whole
 * message text's: a Chat upstream's that no text part could carry) reach a non-streamed client:
 * Chat as they are, Responses on the `output_text` holding each span (one spanning several on the
 * part it starts in, cut to it), offsets made the part's.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalResponse } from '../../core/request.ts';
import { emptyUsage } from '../../core/usage.ts';
import { encodeResponse as encodeChat } from '../openai-chat/response.ts';
import type { EncodeContext } from '../types.ts';
import { encodeResponse } from './response.ts';
import { placeResponseAnnotations, type TextSpan } from './response-annotations.ts';

const citation = (start: number, end: number, url: string) => ({
  type: 'url_citation',
  start_index: start,
  end_index: end,
  url,
  title: 'T',
});
const A = 'Paris is sunny.';
const B = ' Lyon is rainy.';
const response: CanonicalResponse = {
  requestId: 'req_1' as CanonicalResponse['requestId'],
  model: 'openai:gpt-4o',
  provider: 'openai',
  content: [
    { type: 'text', text: A },
    { type: 'reasoning', text: 'checking Lyon' },
    { type: 'text', text: B, metadata: { 'openai.annotations': [citation(1, 5, 'https://lyon.example')] } },
  ],
  finishReason: 'completed',
  usage: emptyUsage(),
  latencyMs: 1,
  metadata: {
    'openai.annotations': [
      citation(0, 15, 'https://paris.example'),
      citation(20, 30, 'https://rain.example'),
      citation(10, 20, 'https://both.example'),
    ],
  },
};
const context = { model: 'm', leftOut: () => {}, opaque: { wrap: (value: unknown) => value } };

describe('a response’s annotations, non-streamed', () => {
  it('reach a Responses client on the output_text holding each span; one spanning parts on the first, cut to it', () => {
    const body = encodeResponse(response, context as unknown as EncodeContext) as {
      output: { type: string; content?: { annotations: unknown[] }[] }[];
    };
    const messages = body.output.filter((item) => item.type === 'message');
    expect(messages.map((item) => item.content?.[0]?.annotations)).toEqual([
      [citation(0, 15, 'https://paris.example'), citation(10, 15, 'https://both.example')],
      [citation(1, 5, 'https://lyon.example'), citation(5, 15, 'https://rain.example')],
    ]);
  });

  it('reach a Chat client with their offsets, after the parts’ own', () => {
    const body = encodeChat(response, context as unknown as EncodeContext) as {
      choices: { message: { annotations: { url_citation: { start_index: number; url: string } }[] } }[];
    };
    const cited = body.choices[0]!.message.annotations.map(
      ({ url_citation }) => `${url_citation.start_index} ${url_citation.url}`,
    );
    expect(cited).toEqual([
      '16 https://lyon.example',
      '0 https://paris.example',
      '20 https://rain.example',
      '10 https://both.example',
    ]);
  });
});

describe('placeResponseAnnotations', () => {
  it('places each annotation once however many parts it spans: the output grows with the input, not parts × annotations', () => {
    const spans: TextSpan[] = Array.from({ length: 300 }, (_, index) => ({
      part: { annotations: [] },
      itemId: `msg_${index}`,
      outputIndex: index,
      start: index * 10,
      end: index * 10 + 10,
    }));
    const spanning = Array.from({ length: 300 }, (_, index) => citation(5, 2995, `https://${index}.example`));
    const placed = placeResponseAnnotations(spanning, spans);
    expect(placed).toHaveLength(300);
    expect(spans[0]!.part.annotations).toHaveLength(300);
    expect(spans[0]!.part.annotations[0]).toEqual(citation(5, 10, 'https://0.example'));
    expect(spans.slice(1).every((span) => span.part.annotations.length === 0)).toBe(true);
  });
});

describe('placeResponseAnnotations, by binary search', () => {
  const spansOf = (lengths: number[]): TextSpan[] => {
    let start = 0;
    return lengths.map((length, index) => {
      const span = {
        part: { annotations: [] },
        itemId: `msg_${index}`,
        outputIndex: index,
        start,
        end: start + length,
      };
      start += length;
      return span;
    });
  };

  it('places each as the part-by-part search did: inside, crossing, empty, out of the text, zero-length at a start', () => {
    const spans = spansOf([5, 0, 5, 5]);
    const placed = placeResponseAnnotations(
      [
        citation(6, 8, 'https://inside.example'),
        citation(3, 12, 'https://crossing.example'),
        citation(5, 5, 'https://zero.example'),
        citation(20, 30, 'https://beyond.example'),
        { type: 'url_citation', url: 'https://no-offsets.example' },
        'not an object',
      ],
      spans,
    );
    expect(
      placed.map(({ span, annotation }) => [span.itemId, annotation.start_index, annotation.end_index]),
    ).toEqual([
      ['msg_2', 1, 3],
      ['msg_0', 3, 5],
      ['msg_2', 0, 0],
    ]);
  });
});
