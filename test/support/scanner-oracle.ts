/**
 * What the hand-written delta scanners' tests share: a seeded generator, a random one-character
 * edit, the `JSON.parse` oracle loop, and the "fast path changes nothing" comparison of a stream
 * parser's events with every event re-serialised so that none takes the fast path.
 */
import { expect } from 'vitest';
import type { StreamEvent } from '../../src/core/events.ts';
import type { StreamBuilder } from '../../src/core/stream-builder.ts';
import type { StreamParser } from '../../src/providers/common/definition.ts';

/** A seeded generator, so a failure names the case that reproduces it. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/** Picks one member of `list` with `next`. */
export function pickWith(next: () => number): <Value>(list: readonly Value[]) => Value {
  return (list) => list[Math.floor(next() * list.length)] as (typeof list)[number];
}

/** With probability 0.3, deletes, inserts or replaces one character of `data` (JSON-significant ones mostly). */
export function maybeMutate(data: string, next: () => number): string {
  if (next() >= 0.3) return data;
  const pick = pickWith(next);
  const at = Math.floor(next() * data.length);
  const edit = pick(['delete', 'insert', 'replace']);
  const character = pick(['"', '\\', ',', ':', '}', ' ', 'x', '0', '\n']);
  return edit === 'delete'
    ? data.slice(0, at) + data.slice(at + 1)
    : data.slice(0, at) + character + data.slice(edit === 'insert' ? at : at + 1);
}

/** One scanner under test: `scan` as the parser calls it, `read` its fields after a successful scan. */
export interface ScannerUnderTest {
  scan(data: string): boolean;
  read(): unknown;
  /** What the parser reads from the event as `JSON.parse` gives it. */
  expected(parsed: Record<string, unknown>): unknown;
}

/**
 * Runs `rounds` generated events through the scanner with `JSON.parse` as the oracle: whatever JSON
 * refuses the scanner must refuse; whatever the scanner takes must read as JSON reads it. Asserts the
 * generator reached both sides (at least `minimumTaken` taken, 1,000 refused by JSON).
 */
export function checkAgainstJsonParse(
  scanner: ScannerUnderTest,
  generate: (next: () => number) => string,
  {
    rounds = 20_000,
    seed = 20261123,
    minimumTaken,
  }: { rounds?: number; seed?: number; minimumTaken: number },
): void {
  const next = seededRandom(seed);
  let taken = 0;
  let refusedByJson = 0;
  for (let round = 0; round < rounds; round++) {
    const data = generate(next);
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      refusedByJson++;
      expect(scanner.scan(data), data).toBe(false);
      continue;
    }
    if (!scanner.scan(data)) continue;
    taken++;
    expect(scanner.read(), data).toEqual(scanner.expected(parsed as Record<string, unknown>));
  }
  // A broken generator would make the oracle vacuous.
  expect(taken).toBeGreaterThan(minimumTaken);
  expect(refusedByJson).toBeGreaterThan(1000);
}

/**
 * Runs a stream parser over `lines` and describes what it emitted: its events as JSON (latency
 * zeroed, canonical tool ids numbered in order of appearance), then the name of any error thrown.
 */
export function describeParse(
  lines: string[],
  create: () => { parser: StreamParser; builder: StreamBuilder; events: StreamEvent[] },
): string {
  const { parser, builder, events } = create();
  let ending = '';
  try {
    for (const line of lines) parser.onEvent(undefined, line);
    parser.onEnd();
    builder.finish();
  } catch (error) {
    ending = ` then ${error instanceof Error ? error.name : String(error)}`;
  }
  for (const event of events) if (event.type === 'finish') event.response.latencyMs = 0;
  const ids = new Map<string, number>();
  return (JSON.stringify(events) + ending).replace(/tu_[0-9A-Z]{26}/g, (id) => {
    if (!ids.has(id)) ids.set(id, ids.size);
    return `tool-id-${ids.get(id)}`;
  });
}

/** The recorded lines re-serialised with indentation: no event keeps a scanner's shape, all go to `JSON.parse`. */
export function withoutFastPath(lines: string[]): string[] {
  return lines.map((line) => {
    try {
      return JSON.stringify(JSON.parse(line), null, 1);
    } catch {
      return line;
    }
  });
}

/**
 * Runs recorded `lines` through the scanner: each must be taken exactly when `shouldTake` says so
 * (lines JSON refuses never), and read as `JSON.parse` reads it. Returns how many were taken.
 */
export function checkRecordedLines(
  scanner: ScannerUnderTest,
  lines: string[],
  shouldTake: (line: string, event: Record<string, unknown>) => boolean,
): number {
  let taken = 0;
  for (const line of lines) {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(line) as Record<string, unknown>;
    } catch {
      // A recording cut mid-line: the scanner must leave it to JSON.parse, which throws.
      expect(scanner.scan(line)).toBe(false);
      continue;
    }
    const take = shouldTake(line, event);
    expect(scanner.scan(line), line).toBe(take);
    if (!take) continue;
    taken++;
    expect(scanner.read(), line).toEqual(scanner.expected(event));
  }
  return taken;
}

/** JSON string literals and their text, for the scanners' decoding tests: [name, literal, text]. */
export const jsonStringCases: Array<[string, string, string]> = [
  ['quote and backslash', '"say \\"hi\\" \\\\ bye"', 'say "hi" \\ bye'],
  ['every one-character escape', '"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\/\b\f\n\r\t'],
  ['unicode escapes and a surrogate pair', '"caf\\u00e9 \\ud83d\\ude80"', 'café 🚀'],
  ['a lone surrogate escape', '"\\ud800x"', '\ud800x'],
  ['raw multibyte text', '"naïve 🚀 ’s"', 'naïve 🚀 ’s'],
  ['an escape at the end', '"end\\n"', 'end\n'],
  ['only an escape', '"\\""', '"'],
  ['empty', '""', ''],
];
