/** `runCli` outcomes that a spawned process cannot easily provoke: an unexpected failure inside a command. */
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createProviderTypeTable } from '../registry/provider-type-table.ts';
import { runCli } from './run.ts';

/** A table whose one row fails to load its adapter with a plain Error: an unexpected failure inside `replay`. */
const providerTypes = createProviderTypeTable();
providerTypes.set('explode', {
  type: 'explode',
  protocol: 'anthropic-messages',
  basePath: '/v1',
  keyVariables: () => [],
  keyRequired: () => false,
  create: () => {
    throw new Error('not loaded');
  },
  load: () => Promise.reject(new Error('disk on fire')),
});
const file = fileURLToPath(
  new URL('../../test/fixtures/recorded/anthropic/anthropic-text.chunks.txt', import.meta.url),
);

async function run(argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(
    argv,
    { stdout: (line) => stdout.push(line), stderr: (line) => stderr.push(line) },
    providerTypes,
  );
  return { code, stdout, stderr };
}

describe('runCli on an unexpected failure', () => {
  afterEach(() => {
    delete process.env.SWITCHYARD_DEBUG;
  });

  it('prints one line naming the command and the error, no stack, and exits 1', async () => {
    expect(await run(['replay', file, '--api', 'explode'])).toEqual({
      code: 1,
      stdout: [],
      stderr: ['switchyard replay: disk on fire (SWITCHYARD_DEBUG=1 shows the stack)'],
    });
  });

  it('prints the stack when SWITCHYARD_DEBUG=1', async () => {
    process.env.SWITCHYARD_DEBUG = '1';
    const { code, stderr } = await run(['replay', file, '--api', 'explode']);
    expect(code).toBe(1);
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(/^Error: disk on fire\n\s+at /);
  });
});
