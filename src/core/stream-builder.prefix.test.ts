/**
 * `StreamBuilder.stripRepeatedPrefix`: the reply's first text part loses the prefix when it begins
 * with it, wherever the deltas split it; any other text (a start of the prefix only, a later text
 * part) goes out whole. A property test checks every split against the reference.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { assertStreamInvariants } from '../testing/invariants.ts';
import type { StreamEvent } from './events.ts';
import type { RequestId } from './ids.ts';
import { StreamBuilder } from './stream-builder.ts';

function run(
  prefix: string,
  parts: string[][],
  stops: string[] = [],
): { texts: string[]; events: StreamEvent[] } {
  const events: StreamEvent[] = [];
  const builder = new StreamBuilder(
    { requestId: 'req' as RequestId, provider: 'test', model: 'test:model', startedAt: performance.now() },
    (event) => events.push(event),
  );
  builder.stripRepeatedPrefix(prefix);
  if (stops.length > 0) builder.stopAt(stops);
  parts.forEach((deltas, index) => {
    for (const delta of deltas) builder.text(`t${index}`, delta);
    builder.end(`t${index}`);
  });
  const response = builder.finish();
  assertStreamInvariants(events);
  return { texts: response.content.map((part) => (part.type === 'text' ? part.text : '')), events };
}

/** Splits `text` at the given cut points. */
function split(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const point of [...points, text.length]) {
    if (point > from) pieces.push(text.slice(from, point));
    from = point;
  }
  return pieces;
}

it('cuts the repeat wherever the deltas split it, and never touches other text', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom('{', '"', 'a', ':', '1', '}'), minLength: 1, maxLength: 4 }),
      fc.string({ unit: fc.constantFrom('{', '"', 'a', ':', '1', '}'), minLength: 1, maxLength: 10 }),
      fc.array(fc.nat(20), { maxLength: 6 }),
      (prefix, text, cuts) => {
        const expected = text.startsWith(prefix) ? text.slice(prefix.length) : text;
        const { texts } = run(prefix, [split(text, cuts), [prefix]]);
        expect(texts).toEqual([expected, prefix]);
      },
    ),
  );
});

it('a stop sequence still cuts the text after the repeat', () => {
  expect(run('{', [['{"a"', ':1}\n', 'more']], ['\n']).texts).toEqual(['"a":1}']);
});

it('a held start of the prefix that completes a stop sequence at the part’s end ends the part once', () => {
  // `run` asserts the stream contract: a second `text-end` for the part would throw.
  const { texts, events } = run('Hello world', [['Hel', 'lo']], ['lo']);
  expect(texts).toEqual(['Hel']);
  expect(events.filter((event) => event.type === 'text-end')).toHaveLength(1);
});
