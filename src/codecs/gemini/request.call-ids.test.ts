/**
 * Gemini `functionResponse` parts answer `functionCall`s: by id when the response has one (the
 * oldest open call of that id, whatever its name), else the oldest open call of its name. Matching
 * N responses is linear in N (counted: array scans and splices while decoding; `call-ids.ts`), not
 * a search and splice of the open calls per response.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestFieldError } from '../fields.ts';
import { codecs } from '../index.ts';
import type { Part } from '../../core/transcript.ts';

const decode = (contents: unknown[]) =>
  codecs.gemini.decodeRequest({ contents }, { model: 'gemini-2.5-flash', stream: false });
const call = (name: string, id?: string) => ({ functionCall: { name, args: {}, ...(id ? { id } : {}) } });
const response = (name: string, id?: string) => ({
  functionResponse: { name, response: { output: 'ok' }, ...(id ? { id } : {}) },
});

/** The call ids the decoded tool results answer, in order. */
function answered(contents: unknown[]): string[] {
  return decode(contents)
    .request.transcript.filter((item) => item.kind === 'tool')
    .flatMap((item) => item.parts)
    .map((part) => (part as Extract<Part, { type: 'tool-result' }>).callId);
}

const user = { role: 'user', parts: [{ text: 'go' }] };

describe('functionResponse matching', () => {
  it('a response without an id answers the oldest open call of its name; one with an id, that call whatever its name', () => {
    const contents = [
      user,
      { role: 'model', parts: [call('a'), call('b', 'x'), call('a'), call('c', 'y')] },
      { role: 'user', parts: [response('a'), response('other', 'y'), response('a'), response('b', 'x')] },
    ];
    expect(answered(contents)).toEqual(['gc_1_0', 'y', 'gc_1_2', 'x']);
  });

  it('a call answered by its id is passed over by a later id-less response of its name', () => {
    const contents = [
      user,
      { role: 'model', parts: [call('a', 'first'), call('a', 'second')] },
      { role: 'user', parts: [response('a', 'first'), response('a')] },
    ];
    expect(answered(contents)).toEqual(['first', 'second']);
  });

  it('two calls of one id are answered oldest first, whatever the response names; an id no call has passes as written', () => {
    const calls = { role: 'model', parts: [call('a', 'same'), call('b', 'same')] };
    const twice = [response('b', 'same'), response('b', 'same'), response('z', 'unknown')];
    expect(answered([user, calls, { role: 'user', parts: twice }])).toEqual(['same', 'same', 'unknown']);
    // b's answer took a's call (the oldest of that id), so an id-less answer of 'a' finds none open.
    const after = [response('b', 'same'), response('a')];
    expect(() => decode([user, calls, { role: 'user', parts: after }])).toThrow(RequestFieldError);
  });

  it('an id-less response no open call of its name awaits is a 400 naming it', () => {
    const contents = [
      user,
      { role: 'model', parts: [call('a')] },
      { role: 'user', parts: [response('a'), response('a')] },
    ];
    expect(() => decode(contents)).toThrow(
      /contents\.2\.parts\.1\.functionResponse answers no earlier functionCall named 'a'/,
    );
  });
});

describe('functionResponse matching: work linear in the responses', () => {
  const scans = ['findIndex', 'find', 'indexOf', 'includes', 'filter', 'some', 'shift', 'splice'] as const;
  afterEach(() => vi.restoreAllMocks());

  /**
   * Elements array scans and splices may visit while `count` calls of one name are answered in
   * reverse (by id) and `count` more in order (without): each scan counted at the array's length,
   * a splice at the elements it moves.
   */
  function work(count: number): number {
    const calls = Array.from({ length: count }, (_, index) => call('f', `id${index}`));
    const byId = Array.from({ length: count }, (_, index) => response('f', `id${count - 1 - index}`));
    const more = Array.from({ length: count }, () => call('g'));
    const byName = Array.from({ length: count }, () => response('g'));
    const contents = [
      user,
      { role: 'model', parts: [...calls, ...more] },
      { role: 'user', parts: [...byId, ...byName] },
    ];
    let visited = 0;
    for (const name of scans) {
      const original = Array.prototype[name] as (...args: unknown[]) => unknown;
      vi.spyOn(Array.prototype, name).mockImplementation(function (this: unknown[], ...args: unknown[]) {
        visited += name === 'splice' ? Math.max(0, this.length - Number(args[0] ?? 0)) : this.length;
        return original.apply(this, args);
      });
    }
    try {
      expect(answered(contents)).toHaveLength(2 * count);
    } finally {
      vi.restoreAllMocks();
    }
    return visited;
  }

  it('at four times the responses, about four times the work (a search and splice per response: ~N²)', () => {
    const [once, four] = [work(500), work(2000)];
    // Searched and spliced per response: ~2·N² (2,000,000 and 32,000,000 at these sizes).
    expect(four).toBeLessThanOrEqual(50 * 2000);
    expect(four).toBeLessThanOrEqual(5 * once + 1000);
  });
});
