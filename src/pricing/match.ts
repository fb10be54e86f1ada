/** Evaluates a price-table row's match rule (the genai-prices match language) against a model name. */
import type { MatchLogic } from './types.ts';

const regexCache = new Map<string, RegExp>();

/** True when `name` (lower-cased by the caller) satisfies `logic`; comparisons are case-insensitive. */
export function matchesLogic(logic: MatchLogic, name: string): boolean {
  if ('equals' in logic) return name === logic.equals.toLowerCase();
  if ('starts_with' in logic) return name.startsWith(logic.starts_with.toLowerCase());
  if ('ends_with' in logic) return name.endsWith(logic.ends_with.toLowerCase());
  if ('contains' in logic) return name.includes(logic.contains.toLowerCase());
  if ('regex' in logic) {
    let regex = regexCache.get(logic.regex);
    if (regex === undefined) {
      regex = new RegExp(logic.regex);
      regexCache.set(logic.regex, regex);
    }
    return regex.test(name);
  }
  if ('or' in logic) return logic.or.some((entry) => matchesLogic(entry, name));
  return logic.and.every((entry) => matchesLogic(entry, name));
}

const dateSuffix = /-(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g;

/** `claude-3-5-sonnet-20241022` → `claude-3-5-sonnet-2024-10-22`, the spelling some rows match. */
export function dashDates(name: string): string {
  return name.replace(
    dateSuffix,
    (_match, year: string, month: string, day: string) => `-${year}-${month}-${day}`,
  );
}
