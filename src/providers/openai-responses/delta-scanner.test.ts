/** The hand-written delta reader reads exactly what `JSON.parse` reads, and leaves everything else to it. */
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
import type { RequestId } from '../../core/ids.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { createTestContext } from '../openai-chat/test-support.ts';
import { argumentsDelta, DeltaScanner, isPartEcho, reasoningDelta, textDelta } from './delta-scanner.ts';
import { createStreamParser } from './stream.ts';

const kinds: Record<string, number> = {
  'response.output_text.delta': textDelta,
  'response.function_call_arguments.delta': argumentsDelta,
  'response.reasoning_summary_text.delta': reasoningDelta,
  'response.reasoning_text.delta': reasoningDelta,
};

/** What the stream parser reads from an event parsed by `JSON.parse` (undefined: not a delta it takes). */
function expectedOf(event: Record<string, unknown>) {
  const kind = kinds[String(event.type)];
  if (kind === undefined || typeof event.delta !== 'string') return undefined;
  const index = (value: unknown) => (typeof value === 'number' && value >= 0 ? value : 0);
  return {
    kind,
    outputIndex: index(event.output_index),
    contentIndex: kind === textDelta ? index(event.content_index) : 0,
    delta: event.delta,
  };
}

function scanned(scanner: DeltaScanner) {
  return {
    kind: scanner.kind,
    outputIndex: scanner.outputIndex,
    contentIndex: scanner.kind === textDelta ? scanner.contentIndex : 0,
    delta: scanner.delta,
  };
}

/** A fresh scanner as the oracle helpers drive it. */
function scannerUnderTest() {
  const scanner = new DeltaScanner();
  return { scan: (data: string) => scanner.scan(data), read: () => scanned(scanner), expected: expectedOf };
}

/** Whether an event has only the members OpenAI sends on deltas, with plain values (what the scanner must take). */
function isUsualShape(line: string, event: Record<string, unknown>): boolean {
  const integers = ['output_index', 'content_index', 'sequence_number', 'summary_index'];
  const strings = ['type', 'delta', 'item_id', 'obfuscation'];
  return (
    !/\s/.test(line.replace(/"(?:[^"\\]|\\.)*"/g, '""')) &&
    Object.entries(event).every(([key, value]) =>
      integers.includes(key)
        ? Number.isInteger(value) && (value as number) >= 0
        : strings.includes(key)
          ? typeof value === 'string'
          : key === 'logprobs' && Array.isArray(value) && value.length === 0,
    )
  );
}

const folders = ['openai/responses', 'open-responses/responses', 'xai/responses'];
const recordedLines = folders
  .flatMap((folder) => listRecorded(folder))
  .filter((file) => file.endsWith('.chunks.txt'))
  .flatMap((file) => readRecorded(file).split('\n'))
  .filter((line) => line.trim() !== '');

describe('DeltaScanner on recorded streams', () => {
  it('takes every usual-shape delta of the recorded streams and reads what JSON.parse reads; nothing else', () => {
    const underTest = scannerUnderTest();
    const taken = checkRecordedLines(
      underTest,
      recordedLines,
      (line, event) => expectedOf(event) !== undefined && isUsualShape(line, event),
    );
    // Thousands of real deltas go through the fast path (a scanner that refused all would fail here).
    expect(taken).toBeGreaterThan(6000);
  });
});

describe('DeltaScanner refusals', () => {
  const base = '{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"hi"}';

  it('takes the plain event', () => {
    const scanner = new DeltaScanner();
    expect(scanner.scan(base)).toBe(true);
    expect(scanned(scanner)).toEqual({ kind: textDelta, outputIndex: 1, contentIndex: 0, delta: 'hi' });
  });

  it.each([
    ['whitespace between members', base.replace(',"delta"', ', "delta"')],
    ['a trailing newline', `${base}\n`],
    ['trailing text', `${base}x`],
    ['a cut-off event', base.slice(0, -2)],
    ['an unknown member', base.replace('}', ',"extra":1}')],
    ['no delta', '{"type":"response.output_text.delta","output_index":0}'],
    ['a delta that is not a string', base.replace('"delta":"hi"', '"delta":5')],
    ['another event type', base.replace('output_text.delta', 'output_text.done')],
    ['a type with an escape', base.replace('output_text', 'output\\u005ftext')],
    ['a key with an escape', base.replace('"delta"', '"delt\\u0061"')],
    ['a fractional index', base.replace('"output_index":1', '"output_index":1.5')],
    ['an exponent', base.replace('"output_index":1', '"output_index":1e0')],
    ['a negative index', base.replace('"output_index":1', '"output_index":-1')],
    ['a leading zero', base.replace('"output_index":1', '"output_index":01')],
    ['a ten-digit index', base.replace('"output_index":1', '"output_index":1234567890')],
    ['a null index', base.replace('"output_index":1', '"output_index":null')],
    ['a raw control character in the delta', base.replace('"hi"', '"h\ni"')],
    ['a raw tab in an id', base.replace('}', ',"item_id":"a\tb"}')],
    ['an unknown escape', base.replace('"hi"', '"h\\xi"')],
    ['a short unicode escape', base.replace('"hi"', '"\\u12"')],
    ['an unterminated delta', '{"type":"response.output_text.delta","delta":"hi}'],
    ['logprobs with entries', base.replace('}', ',"logprobs":[{"token":"hi"}]}')],
    ['an array', `[${base}]`],
    ['a nested object as delta', base.replace('"hi"', '{"a":"b"}')],
  ])('leaves %s to JSON.parse', (_name, data) => {
    expect(new DeltaScanner().scan(data)).toBe(false);
  });

  it.each(jsonStringCases)('decodes %s as JSON.parse does', (_name, literal, expected) => {
    const scanner = new DeltaScanner();
    const data = `{"type":"response.function_call_arguments.delta","item_id":"fc_\\"1","delta":${literal},"obfuscation":"x"}`;
    expect(scanner.scan(data)).toBe(true);
    expect(scanner.delta).toBe(expected);
    expect(scanner.delta).toBe((JSON.parse(data) as { delta: string }).delta);
  });

  it('a repeated member: the last one wins, as in JSON.parse', () => {
    const scanner = new DeltaScanner();
    const data =
      '{"type":"response.function_call_arguments.delta","delta":"a","output_index":2,"delta":"b","type":"response.output_text.delta","output_index":3}';
    expect(scanner.scan(data)).toBe(true);
    expect(scanned(scanner)).toEqual(expectedOf(JSON.parse(data) as Record<string, unknown>));
  });
});

/** Pieces of JSON string text: valid ones, then ones JSON.parse refuses. */
const validPieces = ['a', ' ', 'é', '🚀', '\\"', '\\\\', '\\n', '\\u0041', '\\ud83d', '\\/'];
const invalidPieces = ['"', '\\', '\\x', '\u0001', '\\u00'];
const keys = [
  'type',
  'delta',
  'item_id',
  'obfuscation',
  'output_index',
  'content_index',
  'sequence_number',
  'summary_index',
  'logprobs',
];
/** The order OpenAI sends delta members in. */
const wireOrder = [
  'type',
  'sequence_number',
  'item_id',
  'output_index',
  'content_index',
  'summary_index',
  'delta',
  'logprobs',
  'obfuscation',
];
/** Member values: plain integers, then everything else. */
const integers = ['0', '7', '12', '999999999'];
const otherValues = ['01', '-1', '1.5', '1e2', 'null', '[]', '[1]', 'true', '"x"', '{}', '1000000000'];

/** A random delta-like event text: mostly well-formed, sometimes not, then sometimes mutated. */
function randomEvent(next: () => number): string {
  const pick = pickWith(next);
  const members: string[] = [`"type":"${pick([...Object.keys(kinds), 'response.output_text.done'])}"`];
  if (next() < 0.05) members.push('"other":1');
  const count = Math.floor(next() * 6);
  for (let index = 0; index < count; index++) {
    const key = pick(keys);
    const isString = key === 'delta' || key === 'item_id' || key === 'obfuscation' || next() < 0.1;
    const text = Array.from({ length: Math.floor(next() * 5) }, () =>
      pick(next() < 0.95 ? validPieces : invalidPieces),
    ).join('');
    members.push(`"${key}":${isString ? `"${text}"` : pick(next() < 0.8 ? integers : otherValues)}`);
  }
  if (next() < 0.8) members.splice(Math.floor(next() * members.length), 0, '"delta":"d"');
  if (next() < 0.5) {
    // OpenAI's wire order (the scanner's one-expression path); repeated keys stay adjacent.
    const rank = (member: string) => wireOrder.indexOf(member.slice(1, member.indexOf('"', 1)));
    members.sort((left, right) => rank(left) - rank(right));
  } else {
    for (let index = members.length - 1; index > 0; index--) {
      const other = Math.floor(next() * (index + 1));
      [members[index], members[other]] = [members[other] as string, members[index] as string];
    }
  }
  return maybeMutate(`{${members.join(',')}}`, next);
}

describe('DeltaScanner against JSON.parse on generated events', () => {
  it('never takes what JSON.parse refuses, and reads what JSON.parse reads whenever it takes an event', () => {
    const underTest = scannerUnderTest();
    checkAgainstJsonParse(underTest, randomEvent, { minimumTaken: 1000 });
  });
});

/** The echo events the parser ignores (their content comes again in `output_item.done`). */
const echoTypes = new Set([
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.done',
]);
/** What skipping an event claims: JSON takes it and its (last) type is an echo the parser ignores. */
const echoUnderTest = {
  scan: isPartEcho,
  read: () => true,
  expected: (event: Record<string, unknown>) => (echoTypes.has(String(event.type)) ? true : undefined),
};

describe('isPartEcho', () => {
  it('skips the recorded text parts’ echo events (JSON takes each, its type one the parser ignores), nothing else', () => {
    const taken = checkRecordedLines(echoUnderTest, recordedLines, (line, event) => {
      const part = event.part as Record<string, unknown> | undefined;
      return (
        echoTypes.has(String(event.type)) &&
        !/\s/.test(line.replace(/"(?:[^"\\]|\\.)*"/g, '""')) &&
        (part === undefined ||
          (part.type === 'output_text' &&
            Array.isArray(part.annotations) &&
            part.annotations.length === 0)) &&
        Object.keys(event).every((key) =>
          [
            'type',
            'item_id',
            'output_index',
            'content_index',
            'sequence_number',
            'logprobs',
            'text',
            'part',
          ].includes(key),
        ) &&
        (!('logprobs' in event) || (Array.isArray(event.logprobs) && event.logprobs.length === 0)) &&
        (part === undefined ||
          JSON.stringify(Object.keys(part)) === '["type","annotations","logprobs","text"]')
      );
    });
    expect(taken).toBeGreaterThan(30);
  });

  it.each([
    [
      'a text with annotations',
      '{"type":"response.content_part.done","sequence_number":5,"item_id":"m","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[{"type":"url_citation"}],"logprobs":[],"text":"x"}}',
    ],
    [
      'a refusal part',
      '{"type":"response.content_part.added","sequence_number":5,"item_id":"m","output_index":0,"content_index":0,"part":{"type":"refusal","refusal":""}}',
    ],
    ['no type', '{"sequence_number":5,"item_id":"m","output_index":0,"content_index":0,"text":"x"}'],
    [
      'a delta type after the echo type',
      '{"type":"response.output_text.done","text":"x","type":"response.output_text.delta"}',
    ],
    ['an unterminated text', '{"type":"response.output_text.done","sequence_number":5,"text":"x}'],
    ['whitespace', '{"type":"response.output_text.done", "text":"x"}'],
  ])('leaves %s to JSON.parse', (_name, data) => {
    expect(isPartEcho(data)).toBe(false);
  });

  it('never skips what JSON refuses or what is not an echo the parser ignores, on generated events', () => {
    const members = (next: () => number) => {
      const pick = pickWith(next);
      const text = Array.from({ length: Math.floor(next() * 5) }, () =>
        pick(['a', '\\"', 'é', '\\n', '"', '\\x']),
      ).join('');
      return [
        `"type":"${pick([...echoTypes, 'response.output_text.delta', 'response.output_item.done'])}"`,
        `"sequence_number":${pick(['3', '03', '-1'])}`,
        `"item_id":"${text}"`,
        `"output_index":0`,
        `"content_index":${pick(['0', '1.5'])}`,
        `"text":"${text}"`,
        `"logprobs":${pick(['[]', '[1]'])}`,
        `"part":{"type":"output_text","annotations":[],"logprobs":[],"text":"${text}"}`,
      ].filter(() => next() < 0.7);
    };
    const generate = (next: () => number) => {
      const chosen = members(next);
      for (let index = chosen.length - 1; index > 0; index--) {
        const other = Math.floor(next() * (index + 1));
        [chosen[index], chosen[other]] = [chosen[other]!, chosen[index]!];
      }
      return maybeMutate(`{${chosen.join(',')}}`, next);
    };
    checkAgainstJsonParse(echoUnderTest, generate, { rounds: 8000, minimumTaken: 200 });
  });
});

/** Runs the Responses stream parser over `lines` (see describeParse). */
function parseAll(lines: string[]): string {
  return describeParse(lines, () => {
    const events: StreamEvent[] = [];
    const builder = new StreamBuilder(
      { requestId: 'req_test' as RequestId, provider: 'openai', model: 'openai:m', startedAt: 0 },
      (event) => events.push(event),
    );
    return { parser: createStreamParser(createTestContext({ stream: true }), builder), builder, events };
  });
}

describe('stream parser: the fast path changes nothing', () => {
  const files = folders
    .flatMap((folder) => listRecorded(folder))
    .filter((file) => file.endsWith('.chunks.txt'));

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
