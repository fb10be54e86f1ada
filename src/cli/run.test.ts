/** `runCli` outcomes that a spawned process cannot easily provoke: an unexpected failure inside a command. */
import { afterEach, describe, expect, it } from 'vitest';
import { type Command, commands } from './commands.ts';
import { runCli } from './run.ts';

const failing: Command = {
  name: 'explode',
  summary: 'fails unexpectedly',
  synopsis: '',
  description: 'A command that throws a plain Error.',
  options: {},
  positionals: [],
  run: () => Promise.reject(new Error('disk on fire')),
};

async function run(argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(argv, {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
  });
  return { code, stdout, stderr };
}

describe('runCli on an unexpected failure', () => {
  commands.push(failing);
  afterEach(() => {
    delete process.env.SWITCHYARD_DEBUG;
  });

  it('prints one line naming the command and the error, no stack, and exits 1', async () => {
    expect(await run(['explode'])).toEqual({
      code: 1,
      stdout: [],
      stderr: ['switchyard explode: disk on fire (SWITCHYARD_DEBUG=1 shows the stack)'],
    });
  });

  it('prints the stack when SWITCHYARD_DEBUG=1', async () => {
    process.env.SWITCHYARD_DEBUG = '1';
    const { code, stderr } = await run(['explode']);
    expect(code).toBe(1);
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(/^Error: disk on fire\n\s+at /);
  });
});
