#!/usr/bin/env node
/** The `switchyard` command line: chat, ask, models, history, demo, emulator, replay (see `switchyard help`). */
import * as nodeModule from 'node:module';

// Start-up is part of the experience: V8 keeps the compiled code of the modules a command loads
// (in the OS temp folder), so every run after the first skips compiling them again.
// (`enableCompileCache` is Node ≥ 22.1; the package allows 22.0.)
nodeModule.enableCompileCache?.();
const { runCli } = await import('./run.ts');

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
});
