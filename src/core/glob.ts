/** The one model-name glob matcher: `*` stands for any run of characters, the match is whole-name. */

/** True when `pattern` contains a wildcard. */
export function isGlob(pattern: string): boolean {
  return pattern.includes('*');
}

/**
 * True when `name` matches `pattern`, where `*` stands for any run of characters (possibly empty)
 * and every other character stands for itself. No regular expression: the greedy two-pointer walk
 * (backing up only to the last `*`) takes at most |pattern| × |name| steps whatever the number of
 * `*`, so a pattern such as `*a*a*a*…` cannot backtrack exponentially.
 */
export function matchesGlob(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
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
