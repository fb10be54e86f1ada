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

/**
 * Per list of patterns, the names already matched against it. The lists are configuration (a host's
 * quirks, a key's models), made once and never changed; the names are a handful of models, the
 * cache cleared past {@link maxMatchedNames}. A Chat request matched its model against three such
 * lists per call (~1.5k instructions each under callgrind); a lookup is two map reads.
 */
const matchedNames = new WeakMap<readonly string[], Map<string, boolean>>();
const maxMatchedNames = 256;

/** True when any of `patterns` matches `name`. `patterns` must not change once passed (configuration lists). */
export function matchesAnyGlob(patterns: readonly string[], name: string): boolean {
  if (patterns.length === 0) return false;
  let names = matchedNames.get(patterns);
  if (names === undefined) matchedNames.set(patterns, (names = new Map()));
  let matched = names.get(name);
  if (matched === undefined) {
    matched = patterns.some((pattern) => matchesGlob(pattern, name));
    if (names.size >= maxMatchedNames) names.clear();
    names.set(name, matched);
  }
  return matched;
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
