/** The hand-written Messages delta reader reads exactly what `JSON.parse` reads, and leaves everything else to it. */
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listRecorded, readRecorded } from '../../../test/support/fixtures.ts';
import {
  checkAgainstJsonParse,
  checkRecordedLines,
  describeParse,
  jsonStringCases,
  maybeMutate,
  pickWith,
  withoutFastPath,
} from '../../../test/support/scanner-oracle.ts';
import { DeltaScanner } from './delta-scanner.ts';
import { createStreamParser } from './stream.ts';
import { createRecordingBuilder, createTestContext } from './test-support.ts';

const fields: Record<string, string> = {
  text_delta: 'text',
  input_json_delta: 'partial_json',
  thinking_delta: 'thinking',
};

/** What the stream parser reads from an event parsed by `JSON.parse` (undefined: not a piece it takes). */
function expectedOf(event: Record<string, unknown>) {
  if (event.type !== 'content_block_delta') return undefined;
  const delta = event.delta as Record<string, unknown> | null;
  if (typeof delta !== 'object' || delta === null) return undefined;
  const field = fields[String(delta.type)];
  if (field === undefined || typeof delta[field] !== 'string') return undefined;
  const index = typeof event.index === 'number' ? event.index : 0;
  return { type: delta.type, index, delta: delta[field] };
}

function scanned(scanner: DeltaScanner) {
  return { type: scanner.type, index: scanner.index, delta: scanner.delta };
}

/** A fresh scanner as the oracle helpers drive it. */
function scannerUnderTest() {
  const scanner = new DeltaScanner();
  return { scan: (data: string) => scanner.scan(data), read: () => scanned(scanner), expected: expectedOf };
}

/** Whether an event is in Anthropic's exact wire shape (what the scanner must take). */
function isWireShape(line: string, event: Record<string, unknown>): boolean {
  const expected = expectedOf(event);
  if (expected === undefined || !Number.isInteger(event.index) || (event.index as number) < 0) return false;
  const field = fields[expected.type as string] as string;
  const canonical = `{"type":"content_block_delta","index":${event.index as number},"delta":{"type":"${expected.type as string}","${field}":${JSON.stringify(expected.delta)}}}`;
  // Same keys in the same order with no whitespace; string values' escapes may differ from JSON.stringify's.
  const skeleton = (text: string) => text.replace(/"(?:[^"\\]|\\.)*"(?!:)/g, '""');
  return skeleton(line) === skeleton(canonical);
}

const recordedLines = listRecorded('anthropic')
  .filter((file) => file.endsWith('.chunks.txt'))
  .flatMap((file) => readRecorded(file).split('\n'))
  .filter((line) => line.trim() !== '');

describe('DeltaScanner on recorded Anthropic streams', () => {
  it('takes every wire-shape delta of the recorded streams and reads what JSON.parse reads; nothing else', () => {
    const underTest = scannerUnderTest();
    const taken = checkRecordedLines(underTest, recordedLines, isWireShape);
    // Thousands of real deltas go through the fast path (a scanner that refused all would fail here).
    expect(taken).toBeGreaterThan(3000);
  });
});

describe('DeltaScanner refusals', () => {
  const base = '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"hi"}}';

  it('takes the plain event', () => {
    const scanner = new DeltaScanner();
    expect(scanner.scan(base)).toBe(true);
    expect(scanned(scanner)).toEqual({ type: 'text_delta', index: 1, delta: 'hi' });
  });

  it.each([
    ['whitespace between members', base.replace(',"delta"', ', "delta"')],
    ['a trailing newline', `${base}\n`],
    ['trailing text', `${base}x`],
    ['a cut-off event', base.slice(0, -1)],
    ['an unknown member', base.replace('}}', '},"extra":1}')],
    ['an unknown member in the delta', base.replace('"hi"}', '"hi","extra":1}')],
    ['another order', '{"index":1,"type":"content_block_delta","delta":{"type":"text_delta","text":"hi"}}'],
    ['no index', base.replace('"index":1,', '')],
    ['a text that is not a string', base.replace('"hi"', '5')],
    ['the text under another delta type', base.replace('text_delta', 'thinking_delta')],
    ['a signature delta', base.replace('"text_delta","text"', '"signature_delta","signature"')],
    ['a citations delta', base.replace('"text_delta","text":"hi"', '"citations_delta","citation":{}')],
    ['another event type', base.replace('content_block_delta', 'content_block_start')],
    ['a type with an escape', base.replace('text_delta', 'text\\u005fdelta')],
    ['a fractional index', base.replace('"index":1', '"index":1.5')],
    ['a negative index', base.replace('"index":1', '"index":-1')],
    ['a leading zero', base.replace('"index":1', '"index":01')],
    ['a ten-digit index', base.replace('"index":1', '"index":1234567890')],
    ['a raw control character in the text', base.replace('"hi"', '"h\ni"')],
    ['an unknown escape', base.replace('"hi"', '"h\\xi"')],
    ['a short unicode escape', base.replace('"hi"', '"\\u12"')],
    ['an unterminated text', base.replace('"hi"}}', '"hi}}')],
    ['an array', `[${base}]`],
  ])('leaves %s to JSON.parse', (_name, data) => {
    expect(new DeltaScanner().scan(data)).toBe(false);
  });

  it.each(jsonStringCases)('decodes %s as JSON.parse does', (_name, literal, expected) => {
    const scanner = new DeltaScanner();
    const data = `{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":${literal}}}`;
    expect(scanner.scan(data)).toBe(true);
    expect(scanner.type).toBe('input_json_delta');
    expect(scanner.delta).toBe(expected);
    expect(scanner.delta).toBe((JSON.parse(data) as { delta: { partial_json: string } }).delta.partial_json);
  });
});

const validPieces = ['a', ' ', 'é', '🚀', '\\"', '\\\\', '\\n', '\\u0041', '\\ud83d', '\\/', '{', '}', ':'];
const invalidPieces = ['"', '\\', '\\x', '\u0001', '\\u00'];
const indexes = ['0', '7', '12', '999999999', '01', '-1', '1.5', '1e2', 'null', '"1"', '1000000000'];

/** A random delta-like event text: mostly the wire shape, sometimes not, then sometimes mutated. */
function randomEvent(next: () => number): string {
  const pick = pickWith(next);
  const type = pick([...Object.keys(fields), 'signature_delta']);
  const field = next() < 0.9 ? (fields[type] ?? 'signature') : pick(Object.values(fields));
  const text = Array.from({ length: Math.floor(next() * 6) }, () =>
    pick(next() < 0.95 ? validPieces : invalidPieces),
  ).join('');
  const value = next() < 0.95 ? `"${text}"` : pick(['5', 'null', '{}', '["a"]']);
  const eventType = next() < 0.95 ? 'content_block_delta' : 'content_block_start';
  const data = `{"type":"${eventType}","index":${pick(indexes)},"delta":{"type":"${type}","${field}":${value}}}`;
  return maybeMutate(data, next);
}

describe('DeltaScanner against JSON.parse on generated events', () => {
  it('never takes what JSON.parse refuses, and reads what JSON.parse reads whenever it takes an event', () => {
    const underTest = scannerUnderTest();
    checkAgainstJsonParse(underTest, randomEvent, { minimumTaken: 2000 });
  });
});

/** Runs the Messages stream parser over `lines` (see describeParse). */
function parseAll(lines: string[]): string {
  return describeParse(lines, () => {
    const { builder, events } = createRecordingBuilder();
    return { parser: createStreamParser(createTestContext({ stream: true }), builder), builder, events };
  });
}

describe('stream parser: the fast path changes nothing', () => {
  const files = listRecorded('anthropic').filter((file) => file.endsWith('.chunks.txt'));

  it.each(files.map((file) => [basename(file), file]))(
    '%s: the same events as when every event goes through JSON.parse',
    (_name, file) => {
      const lines = readRecorded(file)
        .split('\n')
        .filter((line) => line.trim() !== '');
      expect(parseAll(lines)).toEqual(parseAll(withoutFastPath(lines)));
    },
  );
});
