/** The one model-name glob matcher: `*` stands for any run of characters, the match is whole-name. */

const compiled = new Map<string, RegExp>();

/** True when `pattern` contains a wildcard. */
export function isGlob(pattern: string): boolean {
  return pattern.includes('*');
}

/**
 * True when `name` matches `pattern`, where `*` stands for any run of characters (possibly empty)
 * and every other character stands for itself. Compiled patterns are cached.
 */
export function matchesGlob(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    const source = pattern
      .split('*')
      .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    regex = new RegExp(`^${source}$`, 's');
    compiled.set(pattern, regex);
  }
  return regex.test(name);
}

/** True when any of `patterns` matches `name`. */
export function matchesAnyGlob(patterns: readonly string[], name: string): boolean {
  for (const pattern of patterns) if (matchesGlob(pattern, name)) return true;
  return false;
}

/**
 * The value of the last row of `rows` whose glob key matches `name` (tables list general globs
 * first, so the most specific row wins), or `undefined`.
 */
export function lastMatchingRow<Value>(
  rows: Readonly<Record<string, Value>>,
  name: string,
): Value | undefined {
  let found: Value | undefined;
  for (const pattern in rows) if (matchesGlob(pattern, name)) found = rows[pattern];
  return found;
}
