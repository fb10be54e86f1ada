/** The per-token chunk fast path writes exactly what serializing the whole chunk writes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFrame } from '../frames.ts';
import type { WireFrame } from '../types.ts';
import { chunkFrames, splicedChunk } from './response.ts';

const chunkOf =
  (model: string) =>
  (delta: Record<string, unknown>): WireFrame =>
    createFrame({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
      usage: null,
    });

describe('splicedChunk', () => {
  it('gives the same frame as serializing the chunk, for any text (quotes, controls, lone surrogates)', () => {
    const chunk = chunkOf('gpt-5');
    const content = splicedChunk(chunk, 'content');
    const reasoning = splicedChunk(chunk, 'reasoning_content');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(content(text)).toEqual(chunk({ content: text }));
        expect(reasoning(text)).toEqual(chunk({ reasoning_content: text }));
      }),
      { numRuns: 2000 },
    );
  });

  it('falls back to serializing the chunk when the placeholder also appears elsewhere', () => {
    const chunk = chunkOf('\u0000\u0001');
    const content = splicedChunk(chunk, 'content');
    expect(content('hi "there"')).toEqual(chunk({ content: 'hi "there"' }));
  });
});

describe('chunkFrames', () => {
  it('gives the same frame as serializing the whole chunk, for any base, delta and finish, with or without `usage: null`', () => {
    const json = fc.jsonValue();
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string().filter((key) => key !== 'choices' && key !== 'usage'),
          json,
          { minKeys: 1 },
        ),
        fc.dictionary(fc.string(), json),
        fc.option(fc.string(), { nil: null }),
        fc.boolean(),
        (base, delta, finish, usageNull) => {
          const expected = createFrame({
            ...base,
            choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
            ...(usageNull ? { usage: null } : {}),
          });
          expect(chunkFrames(base, usageNull)(delta, finish)).toEqual(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
