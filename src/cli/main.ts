#!/usr/bin/env node
/** The `switchyard` command line: demo, emulator, replay, help (see `switchyard help`). */
import { runCli } from './run.ts';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
});
