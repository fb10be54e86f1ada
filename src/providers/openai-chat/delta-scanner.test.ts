/** The hand-written Chat Completions chunk reader reads exactly what `JSON.parse` reads, and leaves everything else to it. */
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
import { type PresetName, presets } from '../openai-compatible/presets.ts';
import { DeltaScanner } from './delta-scanner.ts';
import { type ChatQuirks, defaultQuirks, mergeQuirks, openaiQuirks } from './quirks.ts';
import { createStreamParser } from './stream.ts';
import { createTestContext } from './test-support.ts';

type Chunk = Record<string, unknown>;

/** What the parser reads from a chunk parsed by `JSON.parse` when it is a pure content or argument chunk. */
function expectedOf(chunk: Chunk) {
  const choices = chunk.choices as Chunk[] | undefined;
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const delta = choices[0]?.delta as Chunk | undefined;
  if (typeof delta !== 'object' || delta === null) return undefined;
  if (typeof delta.content === 'string') return { kind: 'content', index: 0, delta: delta.content };
  const call = (delta.tool_calls as Chunk[] | undefined)?.[0];
  const fn = call?.function as Chunk | undefined;
  if (typeof fn?.arguments !== 'string') return undefined;
  return { kind: 'arguments', index: call?.index, delta: fn.arguments };
}

function scanned(scanner: DeltaScanner) {
  return { kind: scanner.kind, index: scanner.index, delta: scanner.delta };
}

/** A fresh scanner as the oracle helpers drive it. */
function scannerUnderTest() {
  const scanner = new DeltaScanner();
  return { scan: (data: string) => scanner.scan(data), read: () => scanned(scanner), expected: pureExpected };
}

const chunkKeys = [
  'id',
  'object',
  'created',
  'model',
  'service_tier',
  'system_fingerprint',
  'choices',
  'usage',
  'obfuscation',
];

/**
 * What the parser reads from a chunk when nothing in it but its text or argument fragment matters
 * (no role, finish reason, usage, logprobs, error, extra choice or member; the ids of the types
 * OpenAI sends): the fast path may take exactly such chunks. Undefined for every other chunk.
 */
function pureExpected(chunk: Chunk) {
  const expected = expectedOf(chunk);
  if (expected === undefined) return undefined;
  const choice = (chunk.choices as Chunk[])[0] as Chunk;
  const pure =
    Object.keys(chunk).every((key) => chunkKeys.includes(key)) &&
    typeof chunk.id === 'string' &&
    chunk.object === 'chat.completion.chunk' &&
    Number.isInteger(chunk.created) &&
    (chunk.created as number) >= 0 &&
    String(chunk.created).length <= 16 &&
    typeof chunk.model === 'string' &&
    (!('service_tier' in chunk) || typeof chunk.service_tier === 'string') &&
    (!('system_fingerprint' in chunk) ||
      chunk.system_fingerprint === null ||
      typeof chunk.system_fingerprint === 'string') &&
    (!('usage' in chunk) || chunk.usage === null) &&
    (!('obfuscation' in chunk) || typeof chunk.obfuscation === 'string') &&
    Object.keys(choice).join() === 'index,delta,logprobs,finish_reason' &&
    choice.index === 0 &&
    choice.logprobs === null &&
    choice.finish_reason === null &&
    Object.keys(choice.delta as Chunk).length === 1 &&
    (expected.kind === 'content' || isPlainCall((choice.delta as Chunk).tool_calls));
  return pure ? expected : undefined;
}

/** One tool-call entry of exactly `{index, function: {arguments}}`, the index a plain integer. */
function isPlainCall(calls: unknown): boolean {
  if (!Array.isArray(calls) || calls.length !== 1) return false;
  const call = calls[0] as Chunk;
  const fn = call.function as Chunk;
  return (
    Object.keys(call).join() === 'index,function' &&
    Number.isInteger(call.index) &&
    (call.index as number) >= 0 &&
    (call.index as number) < 1e9 &&
    typeof fn === 'object' &&
    fn !== null &&
    Object.keys(fn).join() === 'arguments'
  );
}

/** Whether a chunk is exactly OpenAI's delta chunk (what the scanner must take): pure, in wire order. */
function isWireShape(line: string, chunk: Chunk): boolean {
  const expected = pureExpected(chunk);
  if (expected === undefined) return false;
  const canonicalDelta =
    expected.kind === 'content'
      ? { content: expected.delta }
      : { tool_calls: [{ index: expected.index, function: { arguments: expected.delta } }] };
  const canonical: Chunk = { id: chunk.id, object: chunk.object, created: chunk.created, model: chunk.model };
  for (const key of ['service_tier', 'system_fingerprint']) if (key in chunk) canonical[key] = chunk[key];
  canonical.choices = [{ index: 0, delta: canonicalDelta, logprobs: null, finish_reason: null }];
  for (const key of ['usage', 'obfuscation']) if (key in chunk) canonical[key] = chunk[key];
  // Same keys in the same order with no whitespace; string values' escapes may differ from JSON.stringify's.
  const skeleton = (text: string) => text.replace(/"(?:[^"\\]|\\.)*"(?!:)/g, '""');
  return skeleton(line) === skeleton(JSON.stringify(canonical));
}

/** The recorded Chat Completions streams and the quirks of the host that sent each. */
const recorded: Array<{ file: string; quirks: ChatQuirks }> = [
  ...listRecorded('openai/chat').map((file) => ({ file, quirks: openaiQuirks })),
  ...(['groq', 'mistral', 'moonshotai', 'perplexity', 'xai', 'alibaba'] as const).flatMap((folder) => {
    const preset: PresetName = folder === 'moonshotai' ? 'moonshot' : folder;
    return listRecorded(folder).map((file) => ({
      file,
      quirks: mergeQuirks(defaultQuirks, presets[preset].quirks),
    }));
  }),
].filter(({ file }) => file.endsWith('.chunks.txt'));

const linesOf = (file: string) =>
  readRecorded(file)
    .split('\n')
    .filter((line) => line.trim() !== '');

describe('DeltaScanner on recorded Chat Completions streams', () => {
  it("takes every chunk of OpenAI's exact delta shape and reads what JSON.parse reads; nothing else", () => {
    const lines = recorded.flatMap(({ file }) => linesOf(file));
    const taken = checkRecordedLines(scannerUnderTest(), lines, isWireShape);
    // The recorded OpenAI stream's content chunks go through the fast path.
    expect(taken).toBeGreaterThan(20);
  });
});

describe('DeltaScanner refusals', () => {
  const head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1"';
  const base = `${head},"choices":[{"index":0,"delta":{"content":"hi"},"logprobs":null,"finish_reason":null}]}`;
  const call = `${head},"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"function":{"arguments":"{\\"a"}}]},"logprobs":null,"finish_reason":null}]}`;

  it('takes a content chunk and an argument chunk', () => {
    const scanner = new DeltaScanner();
    expect(scanner.scan(base)).toBe(true);
    expect(scanned(scanner)).toEqual({ kind: 'content', index: 0, delta: 'hi' });
    expect(scanner.scan(call)).toBe(true);
    expect(scanned(scanner)).toEqual({ kind: 'arguments', index: 2, delta: '{"a' });
  });

  it('takes the optional members in their place', () => {
    const full = base
      .replace('"gpt-4.1"', '"gpt-4.1","service_tier":"default","system_fingerprint":"fp_1"')
      .replace(/\}$/, ',"usage":null,"obfuscation":"Qup1"}');
    expect(new DeltaScanner().scan(full)).toBe(true);
    expect(new DeltaScanner().scan(base.replace('"gpt-4.1"', '"gpt-4.1","system_fingerprint":null'))).toBe(
      true,
    );
  });

  it.each([
    ['a role', base.replace('{"content"', '{"role":"assistant","content"')],
    ['a refusal', base.replace('"hi"}', '"hi","refusal":null}')],
    ['reasoning', base.replace('{"content":"hi"}', '{"reasoning_content":"hi"}')],
    ['a finish reason', base.replace('"finish_reason":null', '"finish_reason":"stop"')],
    ['logprobs', base.replace('"logprobs":null', '"logprobs":{"content":[]}')],
    ['usage', base.replace(/\}$/, ',"usage":{"prompt_tokens":1}}')],
    ['a second choice', base.replace('}]}', '},{"index":1,"delta":{"content":"x"}}]}')],
    ['choice index 1', base.replace('"index":0', '"index":1')],
    ['an error', base.replace(/\}$/, ',"error":{"message":"x"}}')],
    [
      'another member order',
      base
        .replace('"object":"chat.completion.chunk",', '')
        .replace('{"id"', '{"object":"chat.completion.chunk","id"'),
    ],
    ['another object type', base.replace('chat.completion.chunk', 'chat.completion')],
    ['whitespace', base.replace(',"choices"', ', "choices"')],
    ['a trailing newline', `${base}\n`],
    ['a cut-off chunk', base.slice(0, -1)],
    ['a tool call with an id', call.replace('{"index":2,', '{"index":2,"id":"call_1",')],
    ['a tool call with a name', call.replace('{"arguments"', '{"name":"f","arguments"')],
    ['two tool calls', call.replace('}}]}', '}},{"index":3,"function":{"arguments":"x"}}]}')],
    ['arguments as an object', call.replace('"arguments":"{\\"a"', '"arguments":{}')],
    ['a fractional created', base.replace('1770933892', '1770933892.5')],
    ['a raw control character', base.replace('"hi"', '"h\ni"')],
    ['an unknown escape', base.replace('"hi"', '"h\\xi"')],
    ['a null model', base.replace('"gpt-4.1"', 'null')],
  ])('leaves a chunk with %s to JSON.parse', (_name, data) => {
    expect(new DeltaScanner().scan(data)).toBe(false);
  });

  it.each(jsonStringCases)('decodes %s as JSON.parse does', (_name, literal, expected) => {
    const scanner = new DeltaScanner();
    const data = base.replace('"hi"', literal);
    expect(scanner.scan(data)).toBe(true);
    expect(scanner.delta).toBe(expected);
  });
});

const goodIds = ['"chatcmpl-1"', '"a\\"b"', '""'];
const badIds = ['null', '7', '"x'];
const stringPieces = ['a', ' ', 'é', '🚀', '\\"', '\\\\', '\\n', '\\u0041', '{', ':'];
const badPieces = ['"', '\\', '\\x', '\u0001'];
const indexes = ['0', '3', '12', '01', '-1', '1.5', 'null', '"1"'];

/** A random chunk-like text: mostly OpenAI's shape with optional members and odd values, then sometimes mutated. */
function randomChunk(next: () => number): string {
  const pick = pickWith(next);
  const id = () => pick(next() < 0.9 ? goodIds : badIds);
  const text = Array.from({ length: Math.floor(next() * 5) }, () =>
    pick(next() < 0.95 ? stringPieces : badPieces),
  ).join('');
  const delta =
    next() < 0.6
      ? `{"content":"${text}"}`
      : next() < 0.9
        ? `{"tool_calls":[{"index":${pick(indexes)},"function":{"arguments":"${text}"}}]}`
        : pick(['{}', '{"role":"assistant"}', `{"content":null}`, `{"content":"${text}","refusal":null}`]);
  const members = [`"id":${id()}`, `"object":"${next() < 0.95 ? 'chat.completion.chunk' : 'x'}"`];
  members.push(`"created":${next() < 0.9 ? '1770933892' : pick(['0', '-1', '1e9'])}`, `"model":${id()}`);
  if (next() < 0.5) members.push(`"service_tier":${id()}`);
  if (next() < 0.5) members.push(`"system_fingerprint":${id()}`);
  const finish = next() < 0.9 ? 'null' : '"stop"';
  const logprobs = next() < 0.9 ? 'null' : pick(['{}', '[]', '{"content":null}']);
  members.push(
    `"choices":[{"index":${next() < 0.95 ? '0' : '1'},"delta":${delta},"logprobs":${logprobs},"finish_reason":${finish}}]`,
  );
  if (next() < 0.5) members.push(`"usage":${pick(['null', 'null', '{}'])}`);
  if (next() < 0.5) members.push(`"obfuscation":${id()}`);
  if (next() < 0.1) members.reverse();
  return maybeMutate(`{${members.join(',')}}`, next);
}

describe('DeltaScanner against JSON.parse on generated chunks', () => {
  it('never takes what JSON.parse refuses, and reads what JSON.parse reads whenever it takes a chunk', () => {
    checkAgainstJsonParse(scannerUnderTest(), randomChunk, { minimumTaken: 2000 });
  });
});

/** Runs the Chat Completions stream parser with `quirks` over `lines` (see describeParse). */
function parseAll(lines: string[], quirks: ChatQuirks): string {
  return describeParse(lines, () => {
    const events: StreamEvent[] = [];
    const builder = new StreamBuilder(
      { requestId: 'req_test' as RequestId, provider: 'openai', model: 'openai:m', startedAt: 0 },
      (event) => events.push(event),
    );
    return {
      parser: createStreamParser(createTestContext({ stream: true }), builder, quirks),
      builder,
      events,
    };
  });
}

describe('stream parser: the fast path changes nothing', () => {
  it.each(recorded.map(({ file, quirks }) => [basename(file), file, quirks] as const))(
    '%s: the same events as when every chunk goes through JSON.parse',
    (_name, file, quirks) => {
      const lines = linesOf(file);
      expect(parseAll(lines, quirks)).toEqual(parseAll(withoutFastPath(lines), quirks));
    },
  );
});
