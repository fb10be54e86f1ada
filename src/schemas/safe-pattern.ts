/**
 * Regular expressions from JSON Schemas we did not write (an MCP server's tool, a stranger's output
 * schema) are run against model output on the event loop. A pattern that can backtrack without
 * bound (`(a+)+$`, `(a|a)*`, backreferences) or is huge would block the process: such patterns are
 * left out of local validation (the schema sent to the model is unchanged).
 */
import type { JsonObject, JsonValue } from '../core/json.ts';

/** Longest pattern compiled for local validation. */
export const maxPatternLength = 512;

/**
 * Whether `source` is safe to run on untrusted input: compiles, at most {@link maxPatternLength}
 * characters, no backreference, and no quantified group that itself holds a quantifier or an
 * alternation (star height ≤ 1, the shape of catastrophic backtracking).
 */
export function isSafePattern(source: unknown): boolean {
  if (typeof source !== 'string' || source.length > maxPatternLength) return false;
  try {
    new RegExp(source, 'u');
  } catch {
    try {
      new RegExp(source);
    } catch {
      return false;
    }
  }
  if (/\\[1-9]|\\k</.test(source)) return false;
  const groups: Array<{ risky: boolean }> = [];
  for (let index = 0; index < source.length; index++) {
    const character = source[index]!;
    if (character === '\\') {
      index++;
      continue;
    }
    if (character === '[') {
      // Skip a character class: its quantifier characters are literals.
      index++;
      while (index < source.length && source[index] !== ']') index += source[index] === '\\' ? 2 : 1;
      continue;
    }
    if (character === '(') groups.push({ risky: false });
    else if (character === ')') {
      const group = groups.pop();
      if (group === undefined) return false;
      const quantified = isQuantifier(source, index + 1);
      if (quantified && group.risky) return false;
      if (groups.length > 0 && (group.risky || quantified)) groups[groups.length - 1]!.risky = true;
    } else if (character === '|' || isQuantifier(source, index)) {
      if (groups.length > 0) groups[groups.length - 1]!.risky = true;
    }
  }
  return true;
}

function isQuantifier(source: string, index: number): boolean {
  const character = source[index];
  if (character === '*' || character === '+') return true;
  if (character !== '{') return false;
  const bound = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(index));
  if (bound === null) return false;
  // `{n}` with n > 1 repeats too: `(.*a){12}` backtracks polynomially to the 12th power.
  return bound[2] === undefined ? Number(bound[1]) > 1 : bound[3] === '' || Number(bound[3]) > 1;
}

/** A copy of `schema` without the `pattern`s (and `patternProperties` keys) that are not safe. */
export function withSafePatterns(schema: JsonObject): JsonObject {
  return strip(schema, 0) as JsonObject;
}

function strip(value: JsonValue, depth: number): JsonValue {
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => strip(item, depth + 1));
  const copy: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'pattern' && typeof item === 'string' && !isSafePattern(item)) continue;
    if (key === 'patternProperties' && item !== null && typeof item === 'object' && !Array.isArray(item)) {
      const kept: JsonObject = {};
      for (const [pattern, schema] of Object.entries(item)) {
        if (isSafePattern(pattern)) kept[pattern] = strip(schema as JsonValue, depth + 1);
      }
      copy[key] = kept;
      continue;
    }
    copy[key] = strip(item as JsonValue, depth + 1);
  }
  return copy;
}
