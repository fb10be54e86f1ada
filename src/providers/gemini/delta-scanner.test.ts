/** The hand-written Gemini chunk reader reads exactly what `JSON.parse` reads, and leaves everything else to it. */
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
import type { StreamEvent } from '../../core/events.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { DeltaScanner } from './delta-scanner.ts';
import { createStreamParser } from './stream.ts';
import { testContext } from './test-support.ts';

type Wire = Record<string, unknown>;

const isObject = (value: unknown): value is Wire =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const keysAre = (value: Wire, keys: string[]) => JSON.stringify(Object.keys(value)) === JSON.stringify(keys);
const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
const isEnum = (value: unknown) => typeof value === 'string' && /^[A-Z_]+$/.test(value);

function isUsage(value: unknown): boolean {
  if (!isObject(value) || Object.keys(value).length === 0) return false;
  return Object.entries(value).every(
    ([key, member]) =>
      /^[A-Za-z]+$/.test(key) &&
      (isCount(member) ||
        isEnum(member) ||
        (Array.isArray(member) &&
          member.every(
            (detail) =>
              isObject(detail) &&
              keysAre(detail, ['modality', 'tokenCount']) &&
              isEnum(detail.modality) &&
              isCount(detail.tokenCount),
          ))),
  );
}

/** The one text or thought part of a chunk of the scanner's shape (as parsed), else undefined. */
function pieceOf(event: Wire): Wire | undefined {
  const allowed = ['candidates', 'usageMetadata', 'modelVersion', 'createTime', 'responseId'];
  const keys = Object.keys(event);
  if (
    keys[0] !== 'candidates' ||
    !keysAre(
      event,
      allowed.filter((key) => keys.includes(key)),
    )
  )
    return undefined;
  if (
    ['modelVersion', 'createTime', 'responseId'].some((key) => key in event && typeof event[key] !== 'string')
  )
    return undefined;
  if ('usageMetadata' in event && !isUsage(event.usageMetadata)) return undefined;
  const candidates = event.candidates;
  if (!Array.isArray(candidates) || candidates.length !== 1 || !isObject(candidates[0])) return undefined;
  const candidate = candidates[0];
  if (
    !keysAre(candidate, ['content']) &&
    !(keysAre(candidate, ['content', 'index']) && candidate.index === 0)
  )
    return undefined;
  const content = candidate.content;
  if (!isObject(content) || content.role !== 'model') return undefined;
  if (!keysAre(content, ['parts', 'role']) && !keysAre(content, ['role', 'parts'])) return undefined;
  const parts = content.parts;
  if (!Array.isArray(parts) || parts.length !== 1 || !isObject(parts[0])) return undefined;
  const part = parts[0];
  if (typeof part.text !== 'string') return undefined;
  if (!keysAre(part, ['text']) && !(keysAre(part, ['text', 'thought']) && part.thought === true))
    return undefined;
  return part;
}

/** What the parser reads from a piece chunk parsed by `JSON.parse`. */
function expectedOf(event: Wire) {
  const part = pieceOf(event);
  if (part === undefined) return undefined;
  return {
    thought: part.thought === true,
    text: part.text,
    usage: event.usageMetadata,
    responseId: event.responseId,
  };
}

function scanned(scanner: DeltaScanner) {
  return {
    thought: scanner.thought,
    text: scanner.text,
    usage: scanner.usage === undefined ? undefined : (JSON.parse(scanner.usage) as unknown),
    responseId: scanner.responseId,
  };
}

function scannerUnderTest() {
  const scanner = new DeltaScanner();
  return { scan: (data: string) => scanner.scan(data), read: () => scanned(scanner), expected: expectedOf };
}

/** Whether a recorded line is a piece chunk in Gemini's exact wire form (no whitespace; any string escapes). */
function isWireShape(line: string, event: Wire): boolean {
  if (pieceOf(event) === undefined) return false;
  const skeleton = (text: string) => text.replace(/"(?:[^"\\]|\\.)*"(?!:)/g, '""');
  return skeleton(line) === skeleton(JSON.stringify(event));
}

const recordedFiles = listRecorded('google').filter((file) => file.endsWith('.chunks.txt'));
const linesOf = (file: string) =>
  readRecorded(file)
    .split('\n')
    .filter((line) => line.trim() !== '');

describe('DeltaScanner on recorded Gemini streams', () => {
  it('takes every wire-shape text and thought chunk of the recorded streams and reads what JSON.parse reads; nothing else', () => {
    const taken = checkRecordedLines(scannerUnderTest(), recordedFiles.flatMap(linesOf), isWireShape);
    expect(taken).toBeGreaterThanOrEqual(5);
  });
});

describe('DeltaScanner refusals', () => {
  const base =
    '{"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":2,"totalTokenCount":11,"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}]},"modelVersion":"gemini-3-flash-preview","responseId":"r1"}';

  it('takes the plain chunk, its usage kept as text', () => {
    const scanner = new DeltaScanner();
    expect(scanner.scan(base)).toBe(true);
    expect(scanned(scanner)).toEqual(expectedOf(JSON.parse(base) as Wire));
    expect(scanner.usage).toBe(
      '{"promptTokenCount":9,"candidatesTokenCount":2,"totalTokenCount":11,"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}]}',
    );
  });

  it('takes a thought and the Vertex member order', () => {
    const vertex =
      '{"candidates":[{"content":{"role":"model","parts":[{"text":"hmm","thought":true}]}}],"usageMetadata":{"trafficType":"ON_DEMAND"},"modelVersion":"gemini-3.1-pro-preview","createTime":"2026-04-02T17:03:50.399550Z","responseId":"r2"}';
    const scanner = new DeltaScanner();
    expect(scanner.scan(vertex)).toBe(true);
    expect(scanned(scanner)).toEqual({
      thought: true,
      text: 'hmm',
      usage: { trafficType: 'ON_DEMAND' },
      responseId: 'r2',
    });
  });

  it.each([
    ['whitespace between members', base.replace(',"modelVersion"', ', "modelVersion"')],
    ['a trailing newline', `${base}\n`],
    ['a cut-off chunk', base.slice(0, -1)],
    ['a finish reason', base.replace(',"index":0', ',"finishReason":"STOP","index":0')],
    ['a thought signature', base.replace('"hi"}', '"hi","thoughtSignature":"c2ln"}')],
    ['a thought that is false', base.replace('"hi"}', '"hi","thought":false}')],
    ['a second part', base.replace('"hi"}]', '"hi"},{"text":"x"}]')],
    ['a second candidate', base.replace('"index":0}]', '"index":0},{"index":1}]')],
    ['another candidate index', base.replace('"index":0', '"index":1')],
    ['another role', base.replace('"role":"model"', '"role":"user"')],
    ['a function call', base.replace('{"text":"hi"}', '{"functionCall":{"name":"f","args":{}}}')],
    ['an unknown member', base.replace('"responseId"', '"extra":1,"responseId"')],
    [
      'members in another order',
      base.replace(
        '"modelVersion":"gemini-3-flash-preview","responseId":"r1"',
        '"responseId":"r1","modelVersion":"gemini-3-flash-preview"',
      ),
    ],
    [
      'prompt feedback',
      base.replace(',"modelVersion"', ',"promptFeedback":{"blockReason":"SAFETY"},"modelVersion"'),
    ],
    ['an error', '{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}'],
    ['a fractional count', base.replace('"totalTokenCount":11', '"totalTokenCount":1.5')],
    ['a negative count', base.replace('"totalTokenCount":11', '"totalTokenCount":-1')],
    ['a leading zero', base.replace('"totalTokenCount":11', '"totalTokenCount":011')],
    ['a lower-case enum', base.replace('"TEXT"', '"text"')],
    ['a usage key with an escape', base.replace('"totalTokenCount"', '"total\\u0054okenCount"')],
    ['an empty usage object', base.replace(/"usageMetadata":\{.*?\]\}/, '"usageMetadata":{}')],
    ['a raw control character in the text', base.replace('"hi"', '"h\ni"')],
    ['an unknown escape', base.replace('"hi"', '"h\\xi"')],
    ['a text that is not a string', base.replace('"hi"', '5')],
    ['an array', `[${base}]`],
  ])('leaves %s to JSON.parse', (_name, data) => {
    expect(new DeltaScanner().scan(data)).toBe(false);
  });

  it.each(jsonStringCases)('decodes %s as JSON.parse does', (_name, literal, expected) => {
    const data = base.replace('"hi"', literal).replace('"r1"', literal);
    const scanner = new DeltaScanner();
    expect(scanner.scan(data)).toBe(true);
    expect(scanner.text).toBe(expected);
    expect(scanner.responseId).toBe(expected);
  });
});

const texts = ['a', ' ', 'é', '🚀', '\\"', '\\\\', '\\n', '\\u0041', '\\ud83d', '{', '}', ':', ','];
const badTexts = ['"', '\\', '\\x', '\u0001', '\\u00'];
const counts = ['0', '7', '42', '128', '9999999999999999', '01', '-1', '1.5', 'null', '10000000000000000'];

/** A random chunk-like text: mostly the wire shape, sometimes not, then sometimes mutated. */
function randomChunk(next: () => number): string {
  const pick = pickWith(next);
  const text = Array.from({ length: Math.floor(next() * 6) }, () =>
    pick(next() < 0.95 ? texts : badTexts),
  ).join('');
  const part = `{"text":"${text}"${pick(['', '', ',"thought":true', ',"thought":false', ',"thoughtSignature":"c2ln"'])}}`;
  const content = next() < 0.5 ? `{"parts":[${part}],"role":"model"}` : `{"role":"model","parts":[${part}]}`;
  const candidate = `{"content":${content}${pick(['', ',"index":0', ',"index":1', ',"finishReason":"STOP"'])}}`;
  const usage = `{"promptTokenCount":${pick(counts)},"totalTokenCount":${pick(counts)}${pick(['', ',"promptTokensDetails":[{"modality":"TEXT","tokenCount":3}]', ',"promptTokensDetails":[]', ',"trafficType":"ON_DEMAND"'])}}`;
  const members = [
    `"candidates":[${candidate}]`,
    next() < 0.8 ? `"usageMetadata":${usage}` : '',
    next() < 0.8 ? `"modelVersion":"gemini-3"` : '',
    next() < 0.3 ? `"createTime":"2026-04-02T17:03:50Z"` : '',
    next() < 0.8 ? `"responseId":"${text}"` : '',
  ].filter((member) => member !== '');
  return maybeMutate(`{${members.join(',')}}`, next);
}

describe('DeltaScanner against JSON.parse on generated chunks', () => {
  it('never takes what JSON.parse refuses, and reads what JSON.parse reads whenever it takes a chunk', () => {
    checkAgainstJsonParse(scannerUnderTest(), randomChunk, { rounds: 10_000, minimumTaken: 500 });
  });
});

/** Runs the Gemini stream parser over `lines` (see describeParse). */
function parseAll(lines: string[]): string {
  return describeParse(lines, () => {
    const events: StreamEvent[] = [];
    const context = testContext({ stream: true });
    const builder = new StreamBuilder(
      {
        requestId: context.requestId,
        provider: 'gemini',
        model: 'gemini:gemini-3-flash-preview',
        startedAt: 0,
      },
      (event) => events.push(event),
    );
    return { parser: createStreamParser(context, builder), builder, events };
  });
}

describe('stream parser: the fast path changes nothing', () => {
  it.each(recordedFiles.map((file) => [basename(file), file]))(
    '%s: the same events as when every chunk goes through JSON.parse',
    (_name, file) => {
      const lines = linesOf(file);
      expect(parseAll(lines)).toEqual(parseAll(withoutFastPath(lines)));
    },
  );

  it('a long text and thought stream whose usage changes on every chunk: the same events, the last usage emitted', () => {
    const chunk = (text: string, thought: boolean, total: number, finish = false) =>
      JSON.stringify({
        candidates: [
          {
            content: { parts: [thought ? { text, thought: true } : { text }], role: 'model' },
            ...(finish ? { finishReason: 'STOP' } : {}),
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 9, candidatesTokenCount: total, totalTokenCount: 9 + total },
        modelVersion: 'gemini-3-flash-preview',
        responseId: 'r1',
      });
    const lines = [
      ...Array.from({ length: 20 }, (_, index) => chunk(`thinking ${index} `, true, index + 1)),
      ...Array.from({ length: 20 }, (_, index) => chunk(`word ${index} "q"\n`, false, index + 21)),
      chunk('.', false, 41, true),
    ];
    const fast = parseAll(lines);
    expect(fast).toEqual(parseAll(withoutFastPath(lines)));
    expect(fast).toContain('"output":41');
  });
});
