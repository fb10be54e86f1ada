/** Command-line parsing for `switchyard`: declared options only, one-line usage errors with "did you mean". */
import { parseArgs } from 'node:util';

/** Bad usage: the CLI prints the message on one line and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** One option a command accepts. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Placeholder shown in help for a string option's value, e.g. `N`. */
  placeholder?: string;
  description: string;
}

/** What a command accepts: its options and its positional arguments (all required). */
export interface ArgumentSpec {
  options: Record<string, OptionSpec>;
  positionals: string[];
}

/** The parsed arguments of one command. */
export interface ParsedArguments {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** True when `--help`/`-h` was given: the command must print its help and not run. */
  help: boolean;
}

/** The built-in `--help`/`-h` flag every command accepts. */
export const helpOption: OptionSpec = { type: 'boolean', short: 'h', description: 'show this help' };

/**
 * Parses `args` against `spec`. Throws {@link UsageError} naming the first problem: an unknown
 * option (with the closest known one), a missing or unexpected value, or a wrong number of
 * positionals. When `--help` appears, only that is reported, whatever else is wrong.
 */
export function parseArguments(args: string[], spec: ArgumentSpec): ParsedArguments {
  const options: Record<string, OptionSpec> = { ...spec.options, help: helpOption };
  const { values, positionals, tokens } = parseArgs({
    args,
    options: Object.fromEntries(
      Object.entries(options).map(([name, option]) => [
        name,
        option.short === undefined ? { type: option.type } : { type: option.type, short: option.short },
      ]),
    ),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (values.help === true) return { values: {}, positionals: [], help: true };
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = options[token.name];
    if (option === undefined) throw new UsageError(unknownOption(token.rawName, Object.keys(options)));
    if (option.type === 'boolean' && token.value !== undefined)
      throw new UsageError(`option '${token.rawName}' takes no value`);
    if (option.type === 'string' && (token.value === undefined || token.value.startsWith('--')))
      throw new UsageError(`option '${token.rawName}' needs a value`);
  }
  const expected = spec.positionals;
  if (positionals.length < expected.length)
    throw new UsageError(`missing argument <${expected[positionals.length]}>`);
  if (positionals.length > expected.length)
    throw new UsageError(`unexpected argument '${positionals[expected.length]}'`);
  return { values, positionals, help: false };
}

function unknownOption(rawName: string, names: string[]): string {
  const suggestion = rawName.startsWith('--') ? closest(rawName.slice(2), names) : undefined;
  return `unknown option '${rawName}'${suggestion === undefined ? '' : ` (did you mean '--${suggestion}'?)`}`;
}

/**
 * The candidate closest to `word` if it is close enough to be a typo (at most 2 edits, a
 * transposition counting as one, and fewer edits than half the word), or a prefix of one.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  if (best !== undefined && bestDistance <= Math.min(2, Math.ceil(word.length / 2) - 1)) return best;
  if (word.length >= 2) return candidates.find((candidate) => candidate.startsWith(word.toLowerCase()));
  return undefined;
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions, adjacent transpositions. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, row) =>
    Array.from({ length: b.length + 1 }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  for (let row = 1; row <= a.length; row++) {
    for (let column = 1; column <= b.length; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let distance = Math.min(
        rows[row - 1]![column]! + 1,
        rows[row]![column - 1]! + 1,
        rows[row - 1]![column - 1]! + cost,
      );
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1])
        distance = Math.min(distance, rows[row - 2]![column - 2]! + 1);
      rows[row]![column] = distance;
    }
  }
  return rows[a.length]![b.length]!;
}
