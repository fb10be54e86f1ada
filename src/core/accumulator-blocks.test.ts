import { describe, expect, it } from 'vitest';
import { ResponseAccumulator } from './accumulator.ts';

describe('ResponseAccumulator', () => {
  it('joins thousands of text and reasoning deltas exactly (deltas are kept as joined blocks)', () => {
    const accumulator = new ResponseAccumulator();
    accumulator.add({ type: 'message-start', requestId: 'r' as never, model: 'test:m', provider: 'test' });
    accumulator.add({ type: 'reasoning-start', index: 0 });
    const deltas = Array.from({ length: 10_001 }, (_, index) => `${index % 97}é🚀 `);
    for (const delta of deltas) accumulator.add({ type: 'reasoning-delta', index: 0, delta });
    accumulator.add({ type: 'reasoning-end', index: 0 });
    accumulator.add({ type: 'text-start', index: 1 });
    for (const delta of deltas.slice(0, 513)) accumulator.add({ type: 'text-delta', index: 1, delta });
    accumulator.add({ type: 'text-end', index: 1 });
    expect(accumulator.content()).toMatchObject([
      { type: 'reasoning', text: deltas.join('') },
      { type: 'text', text: deltas.slice(0, 513).join('') },
    ]);
  });
});
