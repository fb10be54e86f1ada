/**
 * The tier Bedrock says served a Converse call (`serviceTier: {type}`, in the whole body and in a
 * stream's `metadata` event) is the response's `usage.serviceTier`, with the usage it goes with;
 * a body without one has none.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../core/events.ts';
import type { RequestId } from '../../core/ids.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { capabilitiesFor } from './capabilities.ts';
import { parseResponse } from './response.ts';
import { createStreamParser } from './stream.ts';
import { createTestContext } from './test-support.ts';

const model = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

function builderFor(events: StreamEvent[] = []) {
  return new StreamBuilder(
    { requestId: 'req_test' as RequestId, provider: 'bedrock', model: `bedrock:${model}`, startedAt: 0 },
    (event) => events.push(event),
  );
}

function parseWhole(fields: Record<string, unknown>) {
  const builder = builderFor();
  const body = {
    output: { message: { role: 'assistant', content: [{ text: 'Hi.' }] } },
    stopReason: 'end_turn',
    usage,
    ...fields,
  };
  parseResponse(body, createTestContext('bedrock', model, capabilitiesFor(model)), builder);
  return builder.finish();
}

describe('Bedrock: the service tier that served the call', () => {
  it('a whole Converse body’s serviceTier.type is usage.serviceTier', () => {
    expect(parseWhole({ serviceTier: { type: 'flex' } }).usage).toEqual({
      input: 10,
      cacheRead: 0,
      cacheWrite: 0,
      output: 5,
      reasoning: 0,
      serviceTier: 'flex',
    });
    expect(parseWhole({}).usage).not.toHaveProperty('serviceTier');
  });

  it('a stream’s metadata event says it with the usage', () => {
    const events: StreamEvent[] = [];
    const builder = builderFor(events);
    const parser = createStreamParser(
      createTestContext('bedrock', model, capabilitiesFor(model), true),
      builder,
    );
    parser.onEvent('messageStart', JSON.stringify({ role: 'assistant' }));
    parser.onEvent('contentBlockDelta', JSON.stringify({ contentBlockIndex: 0, delta: { text: 'Hi.' } }));
    parser.onEvent('contentBlockStop', JSON.stringify({ contentBlockIndex: 0 }));
    parser.onEvent('messageStop', JSON.stringify({ stopReason: 'end_turn' }));
    parser.onEvent(
      'metadata',
      JSON.stringify({ usage, metrics: { latencyMs: 5 }, serviceTier: { type: 'priority' } }),
    );
    const response = builder.finish();
    expect(response.usage.serviceTier).toBe('priority');
    assertStreamInvariants(events);
  });
});
