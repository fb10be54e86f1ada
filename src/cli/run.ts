/** Dispatches `switchyard` arguments to a command; usage problems become one line and exit code 2. */
import { readFileSync } from 'node:fs';
import { closest, parseArguments, UsageError } from './args.ts';
import type { ProviderTypeTable } from '../registry/provider-type-table.ts';
import { cliProviderTypes } from './adapters.ts';
import { type Command, commandHelp, createCommands, mainHelp } from './commands.ts';
import type { Output } from './replay-command.ts';
import { parseJson } from '../core/json-text.ts';

/** The package version, read from the `package.json` two folders up (same from `src/cli` and `dist/cli`). */
export function packageVersion(): string {
  const manifest = parseJson(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

function findCommand(commands: Command[], name: string): Command {
  const command = commands.find((candidate) => candidate.name === name);
  if (command !== undefined) return command;
  const suggestion = closest(name, [...commands.map((candidate) => candidate.name), 'help']);
  throw new UsageError(
    `unknown command '${name}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}`,
  );
}

function help(commands: Command[], args: string[], output: Output): number {
  const topics = args.filter((arg) => arg !== '--help' && arg !== '-h');
  if (topics.length > 1) throw new UsageError(`unexpected argument '${topics[1]}'`);
  const topic = topics[0];
  output.stdout(
    topic === undefined ? mainHelp(packageVersion(), commands) : commandHelp(findCommand(commands, topic)),
  );
  return 0;
}

async function dispatch(
  argv: string[],
  output: Output,
  context: { command?: string; providerTypes: ProviderTypeTable },
): Promise<number> {
  const commands = createCommands(context.providerTypes);
  const [first, ...rest] = argv;
  if (first === undefined) {
    output.stderr(mainHelp(packageVersion(), commands));
    return 2;
  }
  if (first === '--version' || first === '-v') {
    output.stdout(packageVersion());
    return 0;
  }
  if (first === '--help' || first === '-h' || first === 'help') return help(commands, rest, output);
  if (first.startsWith('-')) {
    const suggestion = first.startsWith('--') ? closest(first.slice(2), ['help', 'version']) : undefined;
    throw new UsageError(
      `unknown option '${first}'${suggestion === undefined ? '' : ` (did you mean '--${suggestion}'?)`}`,
    );
  }
  const command = findCommand(commands, first);
  context.command = command.name;
  const parsed = parseArguments(rest, command);
  if (parsed.help) {
    output.stdout(commandHelp(command));
    return 0;
  }
  return command.run(parsed, output);
}

/**
 * Runs the command line and returns the exit code: a usage error prints one line on stderr and
 * returns 2; an unexpected error prints one line (the stack only with `SWITCHYARD_DEBUG=1`) and returns 1.
 * `providerTypes` is the table `replay --protocol` chooses from (default: the built-in provider types).
 */
export async function runCli(
  argv: string[],
  output: Output,
  providerTypes: ProviderTypeTable = cliProviderTypes,
): Promise<number> {
  const context: { command?: string; providerTypes: ProviderTypeTable } = { providerTypes };
  try {
    return await dispatch(argv, output, context);
  } catch (error) {
    const prefix = context.command === undefined ? 'switchyard' : `switchyard ${context.command}`;
    if (error instanceof UsageError) {
      const hint = error.message.includes('did you mean')
        ? ''
        : ` — see 'switchyard ${context.command === undefined ? 'help' : `${context.command} --help`}'`;
      output.stderr(`${prefix}: ${error.message}${hint}`);
      return 2;
    }
    if (process.env.SWITCHYARD_DEBUG === '1' && error instanceof Error && error.stack !== undefined)
      output.stderr(error.stack);
    else
      output.stderr(
        `${prefix}: ${error instanceof Error ? error.message : String(error)} (SWITCHYARD_DEBUG=1 shows the stack)`,
      );
    return 1;
  }
}
