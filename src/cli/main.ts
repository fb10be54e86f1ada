#!/usr/bin/env node
/** The `switchyard` command line: emulator, replay, demo. */
import { parseArgs } from 'node:util';
import { type ApiName, apiNames } from './adapters.ts';
import { runDemo } from './demo-command.ts';
import { runEmulator } from './emulator-command.ts';
import { runReplay } from './replay-command.ts';

const usage = `usage:
  switchyard demo                                   run a scripted multi-provider session through the emulator
  switchyard emulator [--port N]                    start the provider emulator and print its URL
  switchyard replay <file> --api <${apiNames.join('|')}>
                                                    run a recorded response through that API's adapter`;

const output = {
  stdout: (line: string) => process.stdout.write(`${line}\n`),
  stderr: (line: string) => process.stderr.write(`${line}\n`),
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'emulator': {
      const { values } = parseArgs({ args: rest, options: { port: { type: 'string', default: '0' } } });
      const port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) return fail(`invalid --port ${values.port}`);
      await runEmulator(port, output.stdout);
      return 0;
    }
    case 'replay': {
      const { values, positionals } = parseArgs({
        args: rest,
        options: { api: { type: 'string' } },
        allowPositionals: true,
      });
      const file = positionals[0];
      if (file === undefined) return fail('replay needs a file');
      if (!apiNames.includes(values.api as ApiName))
        return fail(`--api must be one of ${apiNames.join(', ')}`);
      return runReplay(file, values.api as ApiName, output);
    }
    case 'demo':
      return runDemo(output);
    case undefined:
    case '--help':
    case '-h':
      output.stdout(usage);
      return command === undefined ? 2 : 0;
    default:
      return fail(`unknown command ${command}`);
  }
}

function fail(message: string): number {
  output.stderr(`switchyard: ${message}\n${usage}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    output.stderr(`switchyard: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  },
);
