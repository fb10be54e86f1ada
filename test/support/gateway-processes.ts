/** Gateway instances in their own processes (test/support/gateway-child.ts), stopped by PID. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('./gateway-child.ts', import.meta.url));

/** One running gateway process. */
export interface GatewayProcess {
  url: string;
  process: ChildProcess;
  /** Its stderr lines (warnings as JSON). */
  warnings: string[];
  /** True while it has not exited. */
  alive(): boolean;
  stop(): Promise<void>;
}

/** `sha256:<hex>` of a key, for `gateway.keys[].key`. */
export function keyDigest(key: string): string {
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

/** The util-linux tool that starts a command under resource limits (Linux). */
export const prlimitPath = '/usr/bin/prlimit';

/**
 * Starts one gateway process with `config` (the whole file: front door sections plus `gateway:`);
 * with `openFiles`, under that open-files limit (soft and hard, through {@link prlimitPath}, which
 * execs Node in its own process: the PID stays the gateway's).
 */
export async function startGatewayProcess(
  config: object,
  options: { openFiles?: number } = {},
): Promise<GatewayProcess> {
  const node = [process.execPath, child];
  const [command, ...args] =
    options.openFiles === undefined
      ? node
      : [prlimitPath, `--nofile=${options.openFiles}:${options.openFiles}`, '--', ...node];
  const spawned = spawn(command!, args, {
    env: { ...process.env, GATEWAY_CONFIG: JSON.stringify(config), SWITCHYARD_LOG_LEVEL: 'warn' },
    // stdin stays open while this process lives: the child exits when it closes (no orphans).
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const warnings: string[] = [];
  let buffered = '';
  spawned.stderr!.setEncoding('utf8').on('data', (text: string) => {
    buffered += text;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    warnings.push(...lines);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      // Never leave a process behind: one that did not start in time is killed.
      if (spawned.pid !== undefined && spawned.exitCode === null) process.kill(spawned.pid, 'SIGKILL');
      reject(new Error(`gateway process did not start: ${warnings.join('\n')}`));
    }, 60_000);
    spawned.stdout!.setEncoding('utf8').on('data', (text: string) => {
      out += text;
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      resolve((JSON.parse(out.split('\n')[0]!) as { url: string }).url);
    });
    spawned.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway process exited (${code}): ${warnings.join('\n')}${buffered}`));
    });
  });
  return {
    url,
    process: spawned,
    warnings,
    alive: () => spawned.exitCode === null && spawned.signalCode === null,
    async stop() {
      if (spawned.exitCode !== null || spawned.signalCode !== null || spawned.pid === undefined) return;
      const exited = new Promise((resolve) => spawned.once('exit', resolve));
      process.kill(spawned.pid, 'SIGKILL');
      await exited;
    },
  };
}
