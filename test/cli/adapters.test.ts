/**
 * The CLI drives the one API table: every row it lists creates a real adapter that streams from the
 * emulator, a row added with `registerApi` appears in `--api`, its help and replays, and an unknown
 * name is the same did-you-mean error in the CLI and the registry.
 */
import { describe, expect, it } from 'vitest';
import {
  cliApiNames,
  cliApis,
  createAdapterFor,
  defaultModelOf,
  resolveApi,
} from '../../src/cli/adapters.ts';
import { runCli } from '../../src/cli/run.ts';
import { userText } from '../../src/core/transcript.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createApiTable, emulatedApis, registerApi } from '../../src/registry/api-table.ts';
import { createSwitchyard } from '../../src/switchyard.ts';
import { emulatorApis, startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { join } from 'node:path';
import { recordedDir } from '../support/fixtures.ts';

const recordedPath = (path: string) => join(recordedDir, path);

async function cli(argv: string[], apis = cliApis) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(
    argv,
    { stdout: (line) => stdout.push(line), stderr: (line) => stderr.push(line) },
    apis,
  );
  return { code, stdout, stderr };
}

describe('the APIs the CLI lists', () => {
  it.each(emulatedApis(cliApis).map((row) => [row.type, row] as const))(
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
        // Vertex's one adapter speaks each publisher's protocol (Gemini's, Anthropic's): api `vertex`.
        const speaks = adapter.api === 'vertex' ? ['gemini', 'vertex-anthropic'] : [adapter.api];
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
        expect(emulator.requests[0]?.api).toBe(row.protocol);
      } finally {
        await emulator.close();
      }
    },
  );

  it('every built-in row speaks a protocol the emulator serves, and each such protocol is an --api name', () => {
    const rows = emulatedApis(cliApis);
    expect(rows.map((row) => row.type)).toEqual([...createApiTable().keys()]);
    for (const row of rows) expect(emulatorApis).toContain(row.protocol);
    expect(cliApiNames().slice(0, emulatorApis.length).sort()).toEqual([...emulatorApis].sort());
  });

  it('a protocol name picks the first row that speaks it; a type picks its own row', () => {
    expect(resolveApi('openai-chat').type).toBe('openai');
    expect(resolveApi('openai-compatible').type).toBe('openai-compatible');
    expect(resolveApi('anthropic-messages')).toBe(resolveApi('anthropic'));
  });

  it('loads only the adapter of the API it drives', async () => {
    const table = createApiTable();
    const anthropic = table.get('anthropic')!;
    expect(() => anthropic.create({ name: 'anthropic', apiKey: 'k' })).toThrow(/not loaded/);
    await anthropic.load!();
    expect(anthropic.create({ name: 'anthropic', apiKey: 'k' }).name).toBe('anthropic');
    expect(() => table.get('gemini')!.create({ name: 'gemini', apiKey: 'k' })).toThrow(/not loaded/);
  });
});

describe('a row added with registerApi', () => {
  function tableWithRow() {
    const apis = createApiTable();
    const created: string[] = [];
    registerApi(
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
      apis,
    );
    return { apis, created };
  }

  it('is listed by replay --help and named by a missing --api', async () => {
    const { apis } = tableWithRow();
    const help = await cli(['replay', '--help'], apis);
    expect(help.code).toBe(0);
    expect(help.stdout.join('\n')).toContain('acme-messages');
    const missing = await cli(['replay', 'x.chunks.txt'], apis);
    expect(missing.stderr[0]).toContain(', acme-messages)');
  });

  it('replays a recorded stream through the emulator in the protocol it declares', async () => {
    const { apis, created } = tableWithRow();
    const run = await cli(
      ['replay', recordedPath('anthropic/anthropic-text.chunks.txt'), '--api', 'acme-messages'],
      apis,
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
    const apis = createApiTable();
    registerApi({ ...apis.get('anthropic')!, type: 'carrier-pigeon', protocol: 'pigeon-post' }, apis);
    const run = await cli(
      ['replay', recordedPath('anthropic/anthropic-text.chunks.txt'), '--api', 'carrier-pigeon'],
      apis,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toEqual([
      `switchyard replay: API 'carrier-pigeon' speaks pigeon-post, which the emulator does not serve (it serves ${emulatorApis.join(', ')})`,
    ]);
  });
});

describe('an unknown API name', () => {
  it('gets the closest known name in the CLI and in the registry', async () => {
    const file = recordedPath('anthropic/anthropic-text.chunks.txt');
    expect((await cli(['replay', file, '--api', 'antropic'])).stderr).toEqual([
      "switchyard replay: unknown --api 'antropic' (did you mean 'anthropic'?)",
    ]);
    expect((await cli(['replay', file, '--api', 'gemni'])).stderr).toEqual([
      "switchyard replay: unknown --api 'gemni' (did you mean 'gemini'?)",
    ]);
    expect(() => createSwitchyard({ env: {}, config: { adapters: { a: { type: 'antropic' } } } })).toThrow(
      "unknown type 'antropic' (did you mean 'anthropic'?)",
    );
  });

  it('with no close match lists every name', async () => {
    const run = await cli(['replay', 'x.chunks.txt', '--api', 'smoke-signals']);
    expect(run).toEqual({
      code: 2,
      stdout: [],
      stderr: [
        `switchyard replay: unknown --api 'smoke-signals' (this version supports ${cliApiNames().join(', ')}) — see 'switchyard replay --help'`,
      ],
    });
  });
});
