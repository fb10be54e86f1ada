/** JSON helpers with a stable key order, so cassette files and comparisons do not churn. */

import type { JsonValue } from '../../core/json.ts';
import { parseJson } from '../../core/json-text.ts';

/** Returns a copy of `value` whose objects have their keys in sorted order, at every depth. */
export function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys(value[key]!);
  return sorted;
}

/** Serializes `value` the way a cassette file is written: two-space indent and a trailing newline. */
export function prettyStringify(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Parses body text for storage: JSON that is not a bare string becomes a value with sorted keys;
 * anything else (including a JSON string literal) stays text, so replay can tell the two apart.
 */
export function parseBodyText(text: string): JsonValue {
  try {
    const parsed: unknown = parseJson(text);
    if (typeof parsed !== 'string') return sortKeys(parsed as JsonValue);
  } catch {
    // Not JSON: stored as text below.
  }
  return text;
}

/** Returns `headers` as a plain object with sorted keys. */
export function sortHeaders(headers: Record<string, string>): Record<string, string> {
  const sorted: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) sorted[name] = headers[name]!;
  return sorted;
}
