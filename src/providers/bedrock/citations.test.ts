/**
 * Converse citations: a whole reply's `citationsContent` block is the answer's text (its
 * `content[].text`) with the citations as `bedrock.citations` metadata, as the streamed form gives
 * (text deltas, then citation deltas). Found by a differential run of the recorded Bedrock replies
 * against the Vercel AI SDK: a citations-only reply came back with no text at all.
 */
import { describe, expect, it } from 'vitest';
import type { RequestId } from '../../core/ids.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { capabilitiesFor } from './capabilities.ts';
import { citationsKey } from './reader.ts';
import { parseResponse } from './response.ts';
import { createTestContext } from './test-support.ts';

const model = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const citation = {
  location: { documentPage: { documentIndex: 0, start: 1, end: 2 } },
  sourceContent: [{ text: 'Generative AI predicts outputs.' }],
  title: 'document-1',
};

function parse(content: unknown[]) {
  const builder = new StreamBuilder(
    { requestId: 'req_test' as RequestId, provider: 'bedrock', model, startedAt: 0 },
    () => {},
  );
  const body = {
    output: { message: { role: 'assistant', content } },
    stopReason: 'end_turn',
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  };
  parseResponse(body, createTestContext('bedrock', model, capabilitiesFor(model)), builder);
  return builder.finish();
}

describe('Bedrock whole reply: citationsContent', () => {
  it('is answer text, the citations kept as bedrock.citations metadata on its part', () => {
    const response = parse([
      { text: 'Here is what the document says. ' },
      {
        citationsContent: {
          content: [{ text: 'Generative AI ' }, { text: 'predicts outputs.' }],
          citations: [citation],
        },
      },
    ]);
    expect(response.content).toEqual([
      { type: 'text', text: 'Here is what the document says. ' },
      {
        type: 'text',
        text: 'Generative AI predicts outputs.',
        metadata: { [citationsKey]: [citation] },
      },
    ]);
    expect(response.finishReason).toBe('completed');
  });

  it('without citations is plain text', () => {
    const response = parse([{ citationsContent: { content: [{ text: 'uncited' }] } }]);
    expect(response.content).toEqual([{ type: 'text', text: 'uncited' }]);
  });
});
