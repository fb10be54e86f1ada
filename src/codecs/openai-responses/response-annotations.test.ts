/**
 * A response's annotations (metadata `<provider>.annotations` on the response, offsets the whole
 * message text's: a Chat upstream's that no text part could carry) reach a non-streamed client:
 * Chat as they are, Responses on the `output_text` holding each span (one spanning several on each,
 * cut to it), offsets made the part's.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalResponse } from '../../core/request.ts';
import { emptyUsage } from '../../core/usage.ts';
import { encodeResponse as encodeChat } from '../openai-chat/response.ts';
import type { EncodeContext } from '../types.ts';
import { encodeResponse } from './response.ts';

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
  it('reach a Responses client on the output_text holding each span; one spanning parts on each, cut to it', () => {
    const body = encodeResponse(response, context as unknown as EncodeContext) as {
      output: { type: string; content?: { annotations: unknown[] }[] }[];
    };
    const messages = body.output.filter((item) => item.type === 'message');
    expect(messages.map((item) => item.content?.[0]?.annotations)).toEqual([
      [citation(0, 15, 'https://paris.example'), citation(10, 15, 'https://both.example')],
      [
        citation(1, 5, 'https://lyon.example'),
        citation(5, 15, 'https://rain.example'),
        citation(0, 5, 'https://both.example'),
      ],
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
