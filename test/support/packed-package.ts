/**
 * Packs the package as `npm publish` would (`npm pack`, whose `prepack` runs the clean build) and
 * installs the tarball into a fresh project outside the repository, offline: the runtime
 * dependencies are copied from this repository's `node_modules` first, so npm finds every one of
 * them installed and needs neither the network nor its cache.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { repoRoot } from './fixtures.ts';

/** The output of one child process. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What `npm pack --json` reports about the tarball. */
export interface PackReport {
  name: string;
  version: string;
  filename: string;
  files: Array<{ path: string; size: number }>;
}

/** A temporary project with the packed package installed. */
export interface InstalledPackage {
  /** The project folder (its `node_modules/<name>` is the installed package). */
  project: string;
  pack: PackReport;
  /** Runs a command in the project, with this Node first on `PATH`; never throws on a non-zero exit. */
  run(
    command: string,
    args: string[],
    options?: { timeout?: number; env?: NodeJS.ProcessEnv },
  ): Promise<RunResult>;
  /** Deletes the project and the tarball. */
  remove(): void;
}

/** Runs `command` and resolves with its exit code and output (rejects only when it cannot start or times out). */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd: string; timeout?: number; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      {
        cwd: options.cwd,
        timeout: options.timeout ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
        env: options.env ?? childEnv(),
      },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number')
          reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stderr}`));
        else resolve({ code: child.exitCode ?? 1, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/**
 * The environment for child processes: this Node first on `PATH` (for the bin's `#!/usr/bin/env node`),
 * and none of the `npm_*` variables of the npm or npx that started the tests (they would point npm
 * in the temporary project back at this repository).
 */
export function childEnv(): NodeJS.ProcessEnv {
  const environment = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  );
  return {
    ...environment,
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    NO_COLOR: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

/** Where a package `name` required from `from` lives, following Node's walk up through `node_modules`. */
function packageDirectory(name: string, from: string): string {
  for (let directory = from; ; directory = dirname(directory)) {
    const candidate = join(directory, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(directory) === directory) throw new Error(`cannot find dependency ${name} from ${from}`);
  }
}

/** Copies `names` and everything they depend on from the repository's `node_modules` into `target`. */
function copyDependencies(names: string[], target: string): void {
  const pending = names.map((name) => ({ name, from: repoRoot }));
  const copied = new Set<string>();
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (copied.has(next.name)) continue;
    copied.add(next.name);
    const source = packageDirectory(next.name, next.from);
    cpSync(source, join(target, next.name), { recursive: true, dereference: true });
    const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const name of Object.keys(manifest.dependencies ?? {})) pending.push({ name, from: source });
  }
}

/** Serialises `npm pack` across test files running in parallel: each one empties and rebuilds `dist/`. */
async function withPackLock<T>(work: () => Promise<T>): Promise<T> {
  const lock = join(repoRoot, 'node_modules', '.cache', 'switchyard-pack.lock');
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const stale = existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 300_000;
      if (stale) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} held for over 3 minutes`);
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Packs the repository and installs the tarball into a new temporary project, offline. */
export async function installPackedPackage(): Promise<InstalledPackage> {
  const root = mkdtempSync(join(tmpdir(), 'switchyard-package-'));
  const project = join(root, 'project');
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  try {
    const packed = await withPackLock(() =>
      runCommand('npm', ['pack', '--json', '--pack-destination', root], { cwd: repoRoot }),
    );
    if (packed.code !== 0) throw new Error(`npm pack failed (${packed.code}):\n${packed.stderr}`);
    const pack = (JSON.parse(packed.stdout) as PackReport[])[0]!;
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'switchyard-consumer', private: true, type: 'module' }, null, 2)}\n`,
    );
    copyDependencies(Object.keys(manifest.dependencies ?? {}), join(project, 'node_modules'));
    const installed = await runCommand(
      'npm',
      ['install', join(root, pack.filename), '--offline', '--ignore-scripts', '--no-audit', '--no-fund'],
      { cwd: project },
    );
    if (installed.code !== 0) throw new Error(`npm install of the tarball failed:\n${installed.stderr}`);
    return {
      project,
      pack,
      run: (command, args, options) => runCommand(command, args, { cwd: project, ...options }),
      remove: () => rmSync(root, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}
