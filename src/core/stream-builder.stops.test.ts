/**
 * `StreamBuilder.stopAt`: the reply's text ends before the first stop sequence it holds, wherever
 * the deltas split it; text that only began a sequence is the reply's; nothing after the stop is
 * taken but usage and metadata. A property test checks every split of the text against the
 * reference cut (`text.slice(0, first match)`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertStreamInvariants } from '../testing/invariants.ts';
import type { StreamEvent } from './events.ts';
import type { RequestId, ToolCallId } from './ids.ts';
import { StreamBuilder } from './stream-builder.ts';

function createBuilder(stops: string[]) {
  const events: StreamEvent[] = [];
  const builder = new StreamBuilder(
    { requestId: 'req' as RequestId, provider: 'test', model: 'test:model', startedAt: performance.now() },
    (event) => events.push(event),
  );
  builder.stopAt(stops);
  return { events, builder };
}

const textOf = (events: StreamEvent[]) =>
  events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : [])).join('');

/**
 * The reference: the text before the sequence completed first (as a model, token by token, stops
 * there); of two completed at once, the longer.
 */
function cut(text: string, stops: string[]): { text: string; stop?: string } {
  let at = -1;
  let end = Number.POSITIVE_INFINITY;
  let stop: string | undefined;
  for (const sequence of stops) {
    const found = text.indexOf(sequence);
    if (found < 0) continue;
    const ends = found + sequence.length;
    if (ends < end || (ends === end && found < at)) [at, end, stop] = [found, ends, sequence];
  }
  return at < 0 ? { text } : { text: text.slice(0, at), stop };
}

describe('StreamBuilder.stopAt', () => {
  it('text, a tool call, then text meeting a stop sequence: the finish stays tool-call, the call kept', () => {
    const { events, builder } = createBuilder(['END']);
    builder.text(0, 'Checking.');
    builder.toolStart(1, 'call_1' as ToolCallId, 'search');
    builder.toolDelta(1, '{"q":"x"}');
    builder.end(1);
    for (const delta of ['Now the E', 'ND and after']) builder.text(2, delta);
    builder.toolStart(3, 'call_2' as ToolCallId, 'search');
    builder.setFinish('tool-call', 'tool_calls');
    expect(builder.stopped).toBe(true);
    const response = builder.finish();
    assertStreamInvariants(events);
    expect(response.content).toEqual([
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', id: 'call_1', name: 'search', input: { q: 'x' }, provider: 'test' },
      { type: 'text', text: 'Now the ' },
    ]);
    expect(response.finishReason).toBe('tool-call');
    expect(response.metadata).toEqual({ 'switchyard.stop_sequence': 'END' });
  });

  it('cuts the text before a sequence split across deltas, finishes stop-sequence naming it, ignores the rest', () => {
    const { events, builder } = createBuilder(['\nObservation:', 'END']);
    for (const delta of ['Thought: look it up', '\nObs', 'ervation: 42', ' and more']) builder.text(0, delta);
    builder.toolStart(1, 'call_1' as ToolCallId, 'search');
    builder.toolDelta(1, '{}');
    builder.end(1);
    builder.reasoning(2, 'late');
    builder.setFinish('completed', 'stop');
    builder.usage({ input: 5, output: 9 });
    expect(builder.stopped).toBe(true);
    const response = builder.finish();
    expect(textOf(events)).toBe('Thought: look it up');
    expect(response.content).toEqual([{ type: 'text', text: 'Thought: look it up' }]);
    expect(response.finishReason).toBe('stop-sequence');
    expect(response.metadata).toEqual({ 'switchyard.stop_sequence': '\nObservation:' });
    expect(response.usage).toMatchObject({ input: 5, output: 9 });
    assertStreamInvariants(events);
  });

  it('text that only began a sequence is sent when its part ends, and the reply finishes as the provider said', () => {
    const { events, builder } = createBuilder(['END']);
    builder.text(0, 'Almost EN');
    expect(textOf(events)).toBe('Almost ');
    builder.end(0);
    builder.setFinish('max-tokens', 'length');
    const response = builder.finish();
    expect(textOf(events)).toBe('Almost EN');
    expect(response.finishReason).toBe('max-tokens');
    expect(builder.stopped).toBe(false);
    assertStreamInvariants(events);
  });

  it('a sequence at the very start leaves an empty text part; reasoning before it is kept', () => {
    const { events, builder } = createBuilder(['STOP']);
    builder.reasoning('r', 'thinking');
    builder.text(0, 'STOP here');
    const response = builder.finish();
    expect(response.content.map((part) => [part.type, 'text' in part ? part.text : undefined])).toEqual([
      ['reasoning', 'thinking'],
      ['text', ''],
    ]);
    expect(response.finishReason).toBe('stop-sequence');
    assertStreamInvariants(events);
  });

  it('each text part is cut on its own: a sequence is not matched across two parts', () => {
    const { events, builder } = createBuilder(['AB']);
    builder.text(0, 'xA');
    builder.reasoning('r', 'between');
    builder.text(1, 'By');
    const response = builder.finish();
    expect(textOf(events)).toBe('xABy');
    expect(response.finishReason).toBe('completed');
  });

  it('an error after the cut keeps the cut text; an empty sequence list changes nothing', () => {
    const { events, builder } = createBuilder(['']);
    builder.text(0, 'all of it');
    expect(builder.finish().content).toEqual([{ type: 'text', text: 'all of it' }]);
    expect(textOf(events)).toBe('all of it');
  });

  it('the sequence completed first wins, not the one starting first: a model stops as soon as one is whole', () => {
    const { builder } = createBuilder(['bc\n', 'c']);
    builder.text(0, 'abc\n');
    const response = builder.finish();
    expect(response.content).toEqual([{ type: 'text', text: 'ab' }]);
    expect(response.metadata).toEqual({ 'switchyard.stop_sequence': 'c' });
  });

  it('a sequence beginning with the second half of a surrogate pair cuts before the whole character', () => {
    const { events, builder } = createBuilder(['\udf89']);
    for (const delta of ['Hi \ud83c', '\udf89 there']) builder.text(0, delta);
    builder.finish();
    expect(textOf(events)).toBe('Hi ');
  });

  it('any split of any text gives the reference cut (property)', () => {
    const alphabet = fc.constantFrom('a', 'b', 'c', '\n', 'é', '🌟');
    const word = fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 40 }).map((chars) => chars.join('')),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (text, stops, splits) => {
          const { events, builder } = createBuilder(stops);
          const points = [...new Set(splits.map((split) => split % (text.length + 1)))].sort((a, b) => a - b);
          let from = 0;
          for (const point of [...points, text.length]) {
            builder.text(0, text.slice(from, point));
            from = point;
          }
          const response = builder.finish();
          const expected = cut(text, stops);
          expect(textOf(events)).toBe(expected.text);
          expect(response.finishReason).toBe(expected.stop === undefined ? 'completed' : 'stop-sequence');
          if (expected.stop !== undefined)
            expect(response.metadata?.['switchyard.stop_sequence']).toBe(expected.stop);
          assertStreamInvariants(events);
        },
      ),
      { numRuns: 500 },
    );
  });
});
