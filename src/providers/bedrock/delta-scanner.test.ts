/** The hand-written ConverseStream delta reader reads exactly what `JSON.parse` reads, and leaves everything else to it. */
import { describe, expect, it } from 'vitest';
import { listRecorded, readRecorded } from '../../../test/support/fixtures.ts';
import {
  checkAgainstJsonParse,
  checkRecordedLines,
  jsonStringCases,
  maybeMutate,
  pickWith,
} from '../../../test/support/scanner-oracle.ts';
import { DeltaScanner } from './delta-scanner.ts';

/** What the parser reads from a payload parsed by `JSON.parse` (undefined: not a piece the scanner takes). */
function expectedOf(payload: Record<string, unknown>) {
  const delta = payload.delta as Record<string, unknown> | null | undefined;
  if (typeof delta !== 'object' || delta === null) return undefined;
  const index = payload.contentBlockIndex as number;
  if (typeof delta.text === 'string') return { kind: 'text', index, delta: delta.text };
  const tool = delta.toolUse as Record<string, unknown> | undefined;
  if (typeof tool?.input === 'string') return { kind: 'toolUse', index, delta: tool.input };
  const reasoning = delta.reasoningContent as Record<string, unknown> | undefined;
  if (typeof reasoning?.text === 'string') return { kind: 'reasoning', index, delta: reasoning.text };
  return undefined;
}

function scannerUnderTest() {
  const scanner = new DeltaScanner();
  return {
    scan: (data: string) => scanner.scan(data),
    read: () => ({ kind: scanner.kind, index: scanner.index, delta: scanner.delta }),
    expected: expectedOf,
  };
}

/** The payloads of the recorded ConverseStream lines (`{"contentBlockDelta": payload}`). */
const recordedPayloads = [...listRecorded('bedrock'), ...listRecorded('bedrock/branches')]
  .filter((file) => file.endsWith('.chunks.txt'))
  .flatMap((file) => readRecorded(file).split('\n'))
  .flatMap((line) => {
    const match = /^\{"contentBlockDelta":(.*)\}$/.exec(line.trim());
    return match === null ? [] : [match[1] as string];
  });

describe('DeltaScanner on recorded Converse streams', () => {
  it('takes every text, tool-input and reasoning-text delta of the recordings, reading what JSON.parse reads', () => {
    const taken = checkRecordedLines(scannerUnderTest(), recordedPayloads, (line, payload) => {
      if (expectedOf(payload) === undefined) return false;
      // Only the exact wire shape: the same keys in the same order, no whitespace.
      const keys =
        JSON.stringify(Object.keys(payload)) + JSON.stringify(Object.keys(payload.delta as object));
      return (
        /^\["contentBlockIndex","delta"(,"p")?\]\["(text|toolUse|reasoningContent)"\]$/.test(keys) &&
        !/\s"/.test(line.replace(/"(?:[^"\\]|\\.)*"/g, '""'))
      );
    });
    expect(taken).toBeGreaterThan(150);
  });
});

describe('DeltaScanner refusals', () => {
  const base = '{"contentBlockIndex":1,"delta":{"text":"hi"}}';

  it('takes the plain payload and the padded one', () => {
    const scanner = new DeltaScanner();
    expect(scanner.scan(base)).toBe(true);
    expect(scanner.scan(base.replace(/\}$/, ',"p":"abcXYZ012"}'))).toBe(true);
    expect([scanner.kind, scanner.index, scanner.delta]).toEqual(['text', 1, 'hi']);
  });

  it.each([
    ['whitespace between members', base.replace(',"delta"', ', "delta"')],
    ['trailing text', `${base}x`],
    ['an unknown member', base.replace(/\}$/, ',"extra":1}')],
    ['an unknown member in the delta', base.replace('"hi"}', '"hi","extra":1}')],
    ['another order', '{"delta":{"text":"hi"},"contentBlockIndex":1}'],
    ['a padding that is not letters and digits', base.replace(/\}$/, ',"p":"a-b"}')],
    ['a signature delta', base.replace('{"text":"hi"}', '{"reasoningContent":{"signature":"hi"}}')],
    ['a citation delta', base.replace('{"text":"hi"}', '{"citation":{}}')],
    ['a negative index', base.replace(':1,', ':-1,')],
    ['an unknown escape', base.replace('"hi"', '"h\\xi"')],
  ])('leaves %s to JSON.parse', (_name, data) => {
    expect(new DeltaScanner().scan(data)).toBe(false);
  });

  it.each(jsonStringCases)('decodes %s as JSON.parse does', (_name, literal, expected) => {
    const data = `{"contentBlockIndex":0,"delta":{"toolUse":{"input":${literal}}}}`;
    const scanner = new DeltaScanner();
    expect(scanner.scan(data)).toBe(true);
    expect(scanner.delta).toBe(expected);
  });
});

const pieces = ['a', ' ', 'é', '🚀', '\\"', '\\\\', '\\n', '\\u0041', '\\/', '{', '"', '\\', '\\x', '\u0001'];
const shapes = [
  (s: string) => `{"text":"${s}"}`,
  (s: string) => `{"toolUse":{"input":"${s}"}}`,
  (s: string) => `{"reasoningContent":{"text":"${s}"}}`,
  (s: string) => `{"reasoningContent":{"signature":"${s}"}}`,
];

describe('DeltaScanner against JSON.parse on 20,000 generated payloads', () => {
  it('never takes what JSON.parse refuses, and reads what it takes as JSON.parse does', () => {
    checkAgainstJsonParse(
      scannerUnderTest(),
      (next) => {
        const pick = pickWith(next);
        const text = Array.from({ length: 1 + Math.floor(next() * 6) }, () => pick(pieces)).join('');
        const padding = next() < 0.5 ? '' : `,"p":"${'abcXYZ019'.slice(0, Math.floor(next() * 9))}"`;
        const index = pick(['0', '3', '12', '01', '-1', '1.5']);
        return maybeMutate(`{"contentBlockIndex":${index},"delta":${pick(shapes)(text)}${padding}}`, next);
      },
      { minimumTaken: 1500 },
    );
  });
});
