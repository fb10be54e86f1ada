/**
 * A hostile `summary_index` on `response.reasoning_summary_part.added` (1.5, 1e999 — Infinity once
 * parsed) numbers no summary part: the reasoning-delta gets a `part` only for a safe positive
 * integer, so the stream keeps its invariants. Before, `part: 1.5` and `part: Infinity` went out.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../core/events.ts';
import type { RequestId } from '../../core/ids.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { findStreamViolations } from '../../testing/invariants.ts';
import { createStreamParser } from './stream.ts';
import { createTestContext } from './test-support.ts';

function run(summaryIndex: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  const builder = new StreamBuilder(
    { requestId: 'req_1' as RequestId, provider: 'openai', model: 'openai:gpt-5-mini', startedAt: 0 },
    (event) => events.push(event),
  );
  const parser = createStreamParser(createTestContext({ stream: true }), builder);
  const feed = (event: object | string) =>
    parser.onEvent('', typeof event === 'string' ? event : JSON.stringify(event));
  const part = { type: 'summary_text', text: '' };
  feed({ type: 'response.created', response: { id: 'resp_1', model: 'gpt-5-mini' } });
  feed({
    type: 'response.output_item.added',
    output_index: 0,
    item: { type: 'reasoning', id: 'rs_1', summary: [] },
  });
  feed({ type: 'response.reasoning_summary_part.added', output_index: 0, summary_index: 0, part });
  feed({ type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 0, delta: 'one' });
  feed(
    `{"type":"response.reasoning_summary_part.added","output_index":0,"summary_index":${summaryIndex},"part":{"type":"summary_text","text":""}}`,
  );
  feed({ type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 1, delta: 'two' });
  const summary = [
    { type: 'summary_text', text: 'one' },
    { type: 'summary_text', text: 'two' },
  ];
  feed({
    type: 'response.output_item.done',
    output_index: 0,
    item: { type: 'reasoning', id: 'rs_1', summary },
  });
  feed({
    type: 'response.completed',
    response: { id: 'resp_1', status: 'completed', usage: { input_tokens: 1, output_tokens: 1 } },
  });
  builder.finish();
  return events;
}

describe('Responses summary_index', () => {
  it.each(['1.5', '1e999', '-1', '"1"'])('%s numbers no part; the stream keeps its invariants', (index) => {
    const events = run(index);
    expect(findStreamViolations(events)).toEqual([]);
    expect(events.some((event) => event.type === 'reasoning-delta' && 'part' in event)).toBe(false);
  });

  it('1 numbers the second part', () => {
    const events = run('1');
    expect(findStreamViolations(events)).toEqual([]);
    expect(events.filter((event) => event.type === 'reasoning-delta' && 'part' in event)).toEqual([
      { type: 'reasoning-delta', index: 0, delta: '\n\n', part: 1 },
    ]);
  });
});
