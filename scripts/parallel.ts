/**
 * Runs npm scripts side by side (`node scripts/parallel.ts typecheck lint:eslint lint:format test:unit`):
 * the last script's output streams as it comes (the long one: a hang shows where it hangs); each
 * other script runs at the lowest CPU priority and its output is printed whole when it ends. The
 * exit code is the first failure's (0 when every script passed). `npm test` runs its checks this
 * way: the typecheck and the lint use the cores the test files leave idle while they wait on
 * sockets, timers and child processes.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node scripts/parallel.ts <npm script>...');
  process.exit(2);
}

function run(name: string, live: boolean): Promise<number> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('npm', ['run', name], {
      stdio: ['ignore', live ? 'inherit' : 'pipe', live ? 'inherit' : 'pipe'],
    });
    const output: Buffer[] = [];
    // The others at the lowest priority: they take the CPU the last one leaves idle, never its
    // share (vitest's timing rows — a 1 s first-byte timeout — ran late beside three checks at
    // the same priority). Set before npm starts their commands, which inherit it.
    if (!live && child.pid !== undefined) {
      try {
        setPriority(child.pid, 19);
      } catch {
        // Not permitted here: they run at the same priority.
      }
    }
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      const status = code ?? (signal === null ? 1 : 128);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `> ${name}: ${status === 0 ? 'passed' : `failed (${signal ?? status})`} in ${seconds} s\n`,
      );
      process.stdout.write(Buffer.concat(output));
      resolve(status);
    });
  });
}

const codes = await Promise.all(names.map((name, index) => run(name, index === names.length - 1)));
process.exitCode = codes.find((code) => code !== 0) ?? 0;
