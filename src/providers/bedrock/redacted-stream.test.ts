/**
 * ConverseStream's redacted reasoning (`reasoningContent.redactedContent` deltas): the part's
 * `reasoning-start` says `redacted: true` and its end carries the whole payload, so an Anthropic
 * client gets a `redacted_thinking` block streamed, as a whole reply gives it.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../core/events.ts';
import type { RequestId } from '../../core/ids.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { capabilitiesFor } from './capabilities.ts';
import { createStreamParser } from './stream.ts';
import { createTestContext } from './test-support.ts';

const model = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

function run(chunks: Array<[string, object]>): StreamEvent[] {
  const events: StreamEvent[] = [];
  const builder = new StreamBuilder(
    { requestId: 'req_test' as RequestId, provider: 'bedrock', model: `bedrock:${model}`, startedAt: 0 },
    (event) => events.push(event),
  );
  const parser = createStreamParser(
    createTestContext('bedrock', model, capabilitiesFor(model), true),
    builder,
  );
  for (const [event, payload] of chunks) parser.onEvent(event, JSON.stringify(payload));
  parser.onEnd();
  builder.finish();
  assertStreamInvariants(events);
  return events;
}

describe('Bedrock: streamed redacted reasoning', () => {
  it('starts redacted and ends with the whole payload', () => {
    const redacted = (text: string) => ({
      contentBlockIndex: 0,
      delta: { reasoningContent: { redactedContent: text } },
    });
    const events = run([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', redacted('UkVEQU')],
      ['contentBlockDelta', redacted('NURUQ=')],
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'hi' } }],
      ['contentBlockStop', { contentBlockIndex: 1 }],
      ['messageStop', { stopReason: 'end_turn' }],
    ]);
    expect(events.filter((event) => event.type.startsWith('reasoning-'))).toEqual([
      { type: 'reasoning-start', index: 0, redacted: true },
      { type: 'reasoning-end', index: 0, redacted: true, data: 'UkVEQUNURUQ=' },
    ]);
  });

  it('signed reasoning text starts as before, without the flag', () => {
    const events = run([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'hmm' } } }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig' } } }],
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['messageStop', { stopReason: 'end_turn' }],
    ]);
    expect(events.find((event) => event.type === 'reasoning-start')).toEqual({
      type: 'reasoning-start',
      index: 0,
    });
  });
});
