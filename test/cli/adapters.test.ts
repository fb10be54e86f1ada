/**
 * The CLI drives the one provider-type table: every row it lists creates a real adapter that streams from the
 * emulator, a row added with `registerProviderType` appears in `--protocol`, its help and replays, and an unknown
 * name is the same did-you-mean error in the CLI and the registry.
 */
import { describe, expect, it } from 'vitest';
import {
  cliProviderTypeNames,
  cliProviderTypes,
  createAdapterFor,
  defaultModelOf,
  resolveProviderType,
} from '../../src/cli/adapters.ts';
import { runCli } from '../../src/cli/run.ts';
import { userText } from '../../src/core/transcript.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import {
  createProviderTypeTable,
  emulatedProviderTypes,
  registerProviderType,
} from '../../src/registry/provider-type-table.ts';
import { createSwitchyard } from '../../src/switchyard.ts';
import { emulatorProtocolIds, startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { join } from 'node:path';
import { recordedDir } from '../support/fixtures.ts';

const recordedPath = (path: string) => join(recordedDir, path);

async function cli(argv: string[], providerTypes = cliProviderTypes) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(
    argv,
    { stdout: (line) => stdout.push(line), stderr: (line) => stderr.push(line) },
    providerTypes,
  );
  return { code, stdout, stderr };
}

describe('the protocols the CLI lists', () => {
  it.each(emulatedProviderTypes(cliProviderTypes).map((row) => [row.type, row] as const))(
    '%s streams a scripted answer from the emulator through its adapter',
    async (type, row) => {
      const emulator = await startEmulator();
      try {
        emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: `hello over ${type}` }] });
        const adapter = await createAdapterFor(row, {
          baseURL: emulator.url,
          apiKey: 'test-key',
          maxRetries: 0,
        });
        // Vertex's one adapter speaks each publisher's protocol (Gemini's, Anthropic's): protocol `vertex`.
        const speaks = adapter.protocol === 'vertex' ? ['gemini', 'vertex-anthropic'] : [adapter.protocol];
        expect(speaks).toContain(row.protocol);
        const events = [];
        let text = '';
        for await (const event of adapter.stream({
          model: defaultModelOf(row),
          transcript: [userText('hi')],
          maxOutputTokens: 64,
        })) {
          events.push(event);
          if (event.type === 'text-delta') text += event.delta;
        }
        await adapter.close();
        assertStreamInvariants(events);
        expect(text).toBe(`hello over ${type}`);
        expect(emulator.requests).toHaveLength(1);
        expect(emulator.requests[0]?.protocol).toBe(row.protocol);
      } finally {
        await emulator.close();
      }
    },
  );

  it('every built-in row speaks a protocol the emulator serves, and each such protocol is a --protocol name', () => {
    const rows = emulatedProviderTypes(cliProviderTypes);
    expect(rows.map((row) => row.type)).toEqual([...createProviderTypeTable().keys()]);
    for (const row of rows) expect(emulatorProtocolIds).toContain(row.protocol);
    expect(cliProviderTypeNames().slice(0, emulatorProtocolIds.length).sort()).toEqual(
      [...emulatorProtocolIds].sort(),
    );
  });

  it('a protocol name picks the first row that speaks it; a type picks its own row', () => {
    expect(resolveProviderType('openai-chat').type).toBe('openai');
    expect(resolveProviderType('openai-compatible').type).toBe('openai-compatible');
    expect(resolveProviderType('anthropic-messages')).toBe(resolveProviderType('anthropic'));
  });

  it('loads only the adapter of the API it drives', async () => {
    const table = createProviderTypeTable();
    const anthropic = table.get('anthropic')!;
    expect(() => anthropic.create({ name: 'anthropic', apiKey: 'k' })).toThrow(/not loaded/);
    await anthropic.load!();
    expect(anthropic.create({ name: 'anthropic', apiKey: 'k' }).name).toBe('anthropic');
    expect(() => table.get('gemini')!.create({ name: 'gemini', apiKey: 'k' })).toThrow(/not loaded/);
  });
});

describe('a row added with registerProviderType', () => {
  function tableWithRow() {
    const providerTypes = createProviderTypeTable();
    const created: string[] = [];
    registerProviderType(
      {
        type: 'acme-messages',
        protocol: 'anthropic-messages',
        basePath: '/acme/v1',
        defaultModel: 'acme:claude-sonnet-4-5',
        keyVariables: () => ['ACME_API_KEY'],
        keyRequired: () => true,
        create: (options) => {
          created.push(`${options.name} ${options.baseURL}`);
          return createAnthropic({
            apiKey: options.apiKey,
            baseURL: options.baseURL,
            maxRetries: 0,
            logger: options.logger,
          });
        },
      },
      providerTypes,
    );
    return { providerTypes, created };
  }

  it('is listed by replay --help and named by a missing --protocol', async () => {
    const { providerTypes } = tableWithRow();
    const help = await cli(['replay', '--help'], providerTypes);
    expect(help.code).toBe(0);
    expect(help.stdout.join('\n')).toContain('acme-messages');
    const missing = await cli(['replay', 'x.chunks.txt'], providerTypes);
    expect(missing.stderr[0]).toContain(', acme-messages)');
  });

  it('replays a recorded stream through the emulator in the protocol it declares', async () => {
    const { providerTypes, created } = tableWithRow();
    const run = await cli(
      ['replay', recordedPath('anthropic/anthropic-text.chunks.txt'), '--protocol', 'acme-messages'],
      providerTypes,
    );
    expect(run.stderr).toEqual([]);
    expect(run.code).toBe(0);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatch(/^acme-messages http:\/\/127\.0\.0\.1:\d+\/acme\/v1$/);
    const finish = JSON.parse(run.stdout.at(-1)!) as { type: string; response: { model: string } };
    expect(finish.type).toBe('finish');
    expect(finish.response.model).toMatch(/^anthropic:/);
  });

  it('is refused by replay when the emulator does not serve its protocol', async () => {
    const providerTypes = createProviderTypeTable();
    registerProviderType(
      { ...providerTypes.get('anthropic')!, type: 'carrier-pigeon', protocol: 'pigeon-post' },
      providerTypes,
    );
    const run = await cli(
      ['replay', recordedPath('anthropic/anthropic-text.chunks.txt'), '--protocol', 'carrier-pigeon'],
      providerTypes,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toEqual([
      `switchyard replay: provider type 'carrier-pigeon' speaks pigeon-post, which the emulator does not serve (it serves ${emulatorProtocolIds.join(', ')})`,
    ]);
  });
});

describe('an unknown API name', () => {
  it('gets the closest known name in the CLI and in the registry', async () => {
    const file = recordedPath('anthropic/anthropic-text.chunks.txt');
    expect((await cli(['replay', file, '--protocol', 'antropic'])).stderr).toEqual([
      "switchyard replay: unknown --protocol 'antropic' (did you mean 'anthropic'?)",
    ]);
    expect((await cli(['replay', file, '--protocol', 'gemni'])).stderr).toEqual([
      "switchyard replay: unknown --protocol 'gemni' (did you mean 'gemini'?)",
    ]);
    expect(() => createSwitchyard({ env: {}, config: { adapters: { a: { type: 'antropic' } } } })).toThrow(
      "unknown type 'antropic' (did you mean 'anthropic'?)",
    );
  });

  it('with no close match lists every name', async () => {
    const run = await cli(['replay', 'x.chunks.txt', '--protocol', 'smoke-signals']);
    expect(run).toEqual({
      code: 2,
      stdout: [],
      stderr: [
        `switchyard replay: unknown --protocol 'smoke-signals' (this version supports ${cliProviderTypeNames().join(', ')}) — see 'switchyard replay --help'`,
      ],
    });
  });
});
