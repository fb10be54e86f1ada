/** Command-line parsing for `switchyard`: declared options only, one-line usage errors with "did you mean". */
import { parseArgs } from 'node:util';
import { closest } from '../core/closest.ts';

export { closest };

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
  /** When set, any number of further positionals are accepted (shown as `[name...]`). */
  rest?: string;
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
  if (positionals.length > expected.length && spec.rest === undefined)
    throw new UsageError(`unexpected argument '${positionals[expected.length]}'`);
  return { values, positionals, help: false };
}

function unknownOption(rawName: string, names: string[]): string {
  const suggestion = rawName.startsWith('--') ? closest(rawName.slice(2), names) : undefined;
  return `unknown option '${rawName}'${suggestion === undefined ? '' : ` (did you mean '--${suggestion}'?)`}`;
}
