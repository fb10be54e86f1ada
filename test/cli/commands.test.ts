/** The `switchyard` bin as a user meets it: version, help that never runs, one-line usage errors. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliProviderTypeNames } from '../../src/cli/adapters.ts';
import { repoRoot } from '../support/fixtures.ts';

const main = join(repoRoot, 'src/cli/main.ts');
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A command that has not exited after this long never will (a help that started the emulator serves
 * until stopped): its test fails. The tests prove what a command prints, not how fast Node starts —
 * on a loaded two-core machine a start took 10–20 s when a dozen ran at once — so the bound is wide.
 */
const hangMs = 60_000;
/** The tests' own bound: room for each CLI of a test, queued behind the others of this file. */
const testTimeout = 180_000;

/** CLIs running now, and the starts waiting for a place: at most two at once (the machine's cores). */
let running = 0;
const queued: Array<() => void> = [];
async function place(): Promise<() => void> {
  if (running >= 2) await new Promise<void>((resolve) => queued.push(resolve));
  else running++;
  return () => {
    const next = queued.shift();
    if (next === undefined) running--;
    else next();
  };
}

/** Runs the CLI with no stdin; a command that hangs (e.g. a help that started the emulator) fails the test. */
async function switchyard(...args: string[]): Promise<Run> {
  const release = await place();
  try {
    return await new Promise((resolve, reject) => {
      const child = execFile(
        process.execPath,
        [main, ...args],
        { timeout: hangMs, env: { ...process.env, SWITCHYARD_DEBUG: '' } },
        (error, stdout, stderr) => {
          if (error?.killed === true) reject(new Error(`switchyard ${args.join(' ')} did not exit`));
          else resolve({ code: child.exitCode, stdout, stderr });
        },
      );
      child.stdin?.end();
    });
  } finally {
    release();
  }
}

describe('switchyard --version', { timeout: testTimeout }, () => {
  it("prints the package's version and exits 0", async () => {
    for (const flag of ['--version', '-v'])
      expect(await switchyard(flag)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe.concurrent('switchyard help', { timeout: testTimeout }, () => {
  it('`help`, `--help` and `-h` print the same command list on stdout and exit 0', async () => {
    const runs = await Promise.all([switchyard('help'), switchyard('--help'), switchyard('-h')]);
    for (const run of runs) expect(run).toEqual(runs[0]);
    expect(await switchyard('help', '--help')).toEqual(runs[0]);
    expect(runs[0]).toMatchObject({ code: 0, stderr: '' });
    for (const command of ['demo', 'emulator', 'replay', 'help'])
      expect(runs[0]!.stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
  });

  it('with no command prints the command list on stderr and exits 2', async () => {
    const run = await switchyard();
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('usage: switchyard <command> [options]');
  });

  it.each([
    ['demo', 'usage: switchyard demo\n'],
    ['emulator', 'usage: switchyard emulator [--port N]\n'],
    ['replay', `usage: switchyard replay <file> --protocol <${cliProviderTypeNames().join('|')}>\n`],
  ])('`%s --help` prints its usage and options without running it', async (command, usage) => {
    const run = await switchyard(command, '--help');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.startsWith(usage)).toBe(true);
    expect(run.stdout).toContain('-h, --help');
    expect(run.stdout).not.toMatch(/turn 1|127\.0\.0\.1:\d/);
    expect(await switchyard('help', command)).toEqual(run);
  });

  it('`--help` wins over any other problem on the line, and `-h` is the same', async () => {
    const run = await switchyard('emulator', '--prot', '1', '--help');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('usage: switchyard emulator');
    expect(await switchyard('emulator', '-h')).toEqual(run);
  });

  it('replay --help lists exactly the protocols the CLI can create adapters for', async () => {
    const run = await switchyard('replay', '--help');
    expect(run.stdout).toContain(
      `--protocol PROTOCOL   wire protocol or provider type: ${cliProviderTypeNames().join(', ')}\n`,
    );
  });
});

describe.concurrent('bad usage exits 2 with one line naming the problem', { timeout: testTimeout }, () => {
  it.each([
    [['demoo'], "switchyard: unknown command 'demoo' (did you mean 'demo'?)"],
    [['emultor'], "switchyard: unknown command 'emultor' (did you mean 'emulator'?)"],
    [['deploy-everything'], "switchyard: unknown command 'deploy-everything' — see 'switchyard help'"],
    [['--verison'], "switchyard: unknown option '--verison' (did you mean '--version'?)"],
    [['help', 'nope'], "switchyard: unknown command 'nope' — see 'switchyard help'"],
    [['emulator', '--prot', '1'], "switchyard emulator: unknown option '--prot' (did you mean '--port'?)"],
    [
      ['emulator', '--port'],
      "switchyard emulator: option '--port' needs a value — see 'switchyard emulator --help'",
    ],
    [
      ['emulator', '--port', '70000'],
      "switchyard emulator: invalid --port '70000' (expected 0–65535) — see 'switchyard emulator --help'",
    ],
    [['demo', 'now'], "switchyard demo: unexpected argument 'now' — see 'switchyard demo --help'"],
    [['replay'], "switchyard replay: missing argument <file> — see 'switchyard replay --help'"],
    [
      ['replay', 'x.chunks.txt'],
      `switchyard replay: missing --protocol (one of ${cliProviderTypeNames().join(', ')}) — see 'switchyard replay --help'`,
    ],
  ])('switchyard %j', async (args, line) => {
    const run = await switchyard(...args);
    expect(run).toEqual({ code: 2, stdout: '', stderr: `${line}\n` });
  });
});

describe('the README', () => {
  it('command-line section names exactly the protocols `--protocol` accepts', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const start = readme.indexOf('## Command line');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const names = cliProviderTypeNames();
    for (const api of [...names, 'smoke-signals'])
      expect(section.includes(`\`${api}\``), api).toBe(names.includes(api));
  });
});
