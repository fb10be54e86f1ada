/**
 * Which stop sequence a Claude model on Bedrock stopped at: Converse says it in
 * `additionalModelResponseFields.stop_sequence` (the whole body, and `messageStop` when streamed).
 * It is the response's `switchyard.stop_sequence`, so an Anthropic client's `stop_sequence` names
 * it as a Claude upstream's does. Found by a prober: an Anthropic client got `stop_sequence: null`.
 */
import { describe, expect, it } from 'vitest';
import { codecs } from '../../codecs/index.ts';
import type { RequestId } from '../../core/ids.ts';
import { stopSequenceKey } from '../../core/metadata.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { capabilitiesFor } from './capabilities.ts';
import { parseResponse } from './response.ts';
import { createTestContext } from './test-support.ts';

const model = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

function parse(additionalModelResponseFields: unknown) {
  const builder = new StreamBuilder(
    { requestId: 'req_test' as RequestId, provider: 'bedrock', model, startedAt: 0 },
    () => {},
  );
  const body = {
    output: { message: { role: 'assistant', content: [{ text: 'one two ' }] } },
    stopReason: 'stop_sequence',
    additionalModelResponseFields,
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  };
  parseResponse(body, createTestContext('bedrock', model, capabilitiesFor(model)), builder);
  return builder.finish();
}

describe('Bedrock: the stop sequence a Claude model stopped at', () => {
  it('is the response’s stop sequence, and an Anthropic client’s stop_sequence', () => {
    const response = parse({ stop_sequence: 'END' });
    expect(response.finishReason).toBe('stop-sequence');
    expect(response.metadata?.[stopSequenceKey]).toBe('END');
    const encoded = codecs['anthropic-messages'].encodeResponse(response, { model: 'claude' }) as Record<
      string,
      unknown
    >;
    expect(encoded.stop_sequence).toBe('END');
  });

  it('is none when Bedrock gives none (null, or no field)', () => {
    expect(parse({ stop_sequence: null }).metadata?.[stopSequenceKey]).toBeUndefined();
    expect(parse(undefined).metadata?.[stopSequenceKey]).toBeUndefined();
  });
});
