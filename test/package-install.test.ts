/**
 * The published package as a user gets it: `npm pack` (clean build), installed offline into a
 * project outside the repository, imported from plain Node ESM, typechecked under `nodenext` and
 * `bundler` resolution, and its `switchyard` bin run through `npx`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './support/fixtures.ts';
import { childEnv, type InstalledPackage, installPackedPackage } from './support/packed-package.ts';

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  exports: Record<string, { default: string; types: string } | string>;
};
const entries = Object.keys(manifest.exports).filter((entry) => entry !== './package.json');
const specifier = (entry: string) => (entry === '.' ? manifest.name : `${manifest.name}/${entry.slice(2)}`);
const staleFile = 'dist/stale-from-an-earlier-build.js';

let installed: InstalledPackage;
let packedPaths: Set<string>;

beforeAll(async () => {
  mkdirSync(join(repoRoot, 'dist'), { recursive: true });
  writeFileSync(join(repoRoot, staleFile), 'export const stale = true;\n');
  installed = await installPackedPackage();
  packedPaths = new Set(installed.pack.files.map((file) => file.path));
}, 240_000);

afterAll(() => installed?.remove(), 60_000);

describe('npm pack', () => {
  it('packs the LICENSE, README, docs, the bin and every exported file', () => {
    for (const path of ['LICENSE', 'README.md', 'package.json', 'docs/options.md', 'dist/cli/main.js'])
      expect(packedPaths, path).toContain(path);
    for (const target of Object.values(manifest.exports)) {
      const paths = typeof target === 'string' ? [target] : [target.default, target.types];
      for (const path of paths) expect(packedPaths, path).toContain(path.slice(2));
    }
    expect(readFileSync(join(repoRoot, 'LICENSE'), 'utf8')).toMatch(
      /^\s+Apache License\s+Version 2\.0, January 2004/,
    );
  });

  it('starts from an empty dist: a file left by an earlier build is not packed', () => {
    expect(existsSync(join(repoRoot, staleFile))).toBe(false);
    expect(packedPaths).not.toContain(staleFile);
  });

  it('packs no tests or test-only helpers', () => {
    const testFiles = [...packedPaths].filter((path) =>
      /\.test\.|test-support|test-server|test-provider/.test(path),
    );
    expect(testFiles).toEqual([]);
  });

  it('ships a source map and a declaration map next to every module, pointing at shipped sources', () => {
    const modules = [...packedPaths].filter((path) => path.startsWith('dist/') && /\.(js|d\.ts)$/.test(path));
    expect(modules.length).toBeGreaterThan(50);
    for (const path of modules) {
      expect(packedPaths, `${path}.map`).toContain(`${path}.map`);
      const map = JSON.parse(
        readFileSync(join(installed.project, 'node_modules', manifest.name, `${path}.map`), 'utf8'),
      ) as {
        sources: string[];
      };
      for (const source of map.sources) {
        const shipped = join(path, '..', source).replaceAll('\\', '/');
        expect(packedPaths, `${path}.map → ${source}`).toContain(shipped);
      }
    }
  });

  it("resolves every README link: relative ones to packed files, the repository's to files in it", () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!);
    expect(links.length).toBeGreaterThan(0);
    const repository = 'https://github.com/switchyard-ai/switchyard/blob/main/';
    for (const link of links) {
      if (link.startsWith(repository))
        expect(existsSync(join(repoRoot, link.slice(repository.length))), link).toBe(true);
      else if (!/^https?:/.test(link)) expect(packedPaths, link).toContain(link);
    }
  });
});

describe('the installed package', { timeout: 90_000 }, () => {
  it('imports every entry point from plain Node ESM with the same exports as its source', async () => {
    const script = [
      `const entries = ${JSON.stringify(Object.fromEntries(entries.map((entry) => [entry, specifier(entry)])))};`,
      'const names = {};',
      'for (const [entry, specifier] of Object.entries(entries)) names[entry] = Object.keys(await import(specifier)).sort();',
      'console.log(JSON.stringify(names));',
    ].join('\n');
    writeFileSync(join(installed.project, 'entries.mjs'), script);
    const run = await installed.run(process.execPath, ['entries.mjs']);
    expect(run.stderr).toBe('');
    const names = JSON.parse(run.stdout) as Record<string, string[]>;
    expect(Object.keys(names)).toEqual(entries);
    for (const entry of entries) {
      const target = manifest.exports[entry] as { default: string };
      const source = join(repoRoot, target.default.replace('./dist/', 'src/').replace(/\.js$/, '.ts'));
      const expected = Object.keys((await import(source)) as object).sort();
      expect(names[entry], entry).toEqual(expected);
    }
  });

  it('streams from the emulator through an adapter, with only its declared dependencies installed', async () => {
    writeFileSync(
      join(installed.project, 'stream.mjs'),
      `import { userText } from '${manifest.name}';
import { createAnthropic } from '${manifest.name}/anthropic';
import { startEmulator } from '${manifest.name}/testing';
const emulator = await startEmulator();
emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'installed and streaming' }] });
const adapter = createAnthropic({ apiKey: 'test-key', baseURL: emulator.url + '/v1', maxRetries: 0 });
let text = '';
for await (const event of adapter.stream({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('hi')], maxOutputTokens: 16 }))
  if (event.type === 'text-delta') text += event.delta;
await adapter.close();
await emulator.close();
console.log(text);
`,
    );
    const run = await installed.run(process.execPath, ['stream.mjs']);
    expect(run).toMatchObject({ code: 0, stdout: 'installed and streaming\n' });
  });

  it('typechecks a consumer under moduleResolution nodenext and bundler', async () => {
    writeFileSync(
      join(installed.project, 'consumer.ts'),
      `import { type CanonicalRequest, isRateLimitError, userText } from '${manifest.name}';
import { createAnthropic } from '${manifest.name}/anthropic';
import { createGemini } from '${manifest.name}/gemini';
import { createOpenAI } from '${manifest.name}/openai';
import { createOpenAICompatible, presets } from '${manifest.name}/openai-compatible';
import { createOpenAIResponses } from '${manifest.name}/openai-responses';
import { assertStreamInvariants, startEmulator } from '${manifest.name}/testing';

const request: CanonicalRequest = { model: 'openai:gpt-4.1-mini', transcript: [userText('hi')], maxOutputTokens: 16 };
const adapters = [
  createAnthropic({ apiKey: 'k' }),
  createOpenAI({ apiKey: 'k' }),
  createGemini({ apiKey: 'k' }),
  createOpenAICompatible(presets.groq),
  createOpenAIResponses({ apiKey: 'k' }),
];

export async function consume(): Promise<string> {
  const emulator = await startEmulator();
  let text = '';
  try {
    const events = [];
    for await (const event of adapters[1]!.stream(request)) {
      events.push(event);
      if (event.type === 'text-delta') text += event.delta;
    }
    assertStreamInvariants(events);
  } catch (error) {
    if (isRateLimitError(error)) return 'later';
  } finally {
    await emulator.close();
  }
  return text;
}

// @ts-expect-error the declarations are real types, not any: a transcript item is not a number
export const wrong: number = userText('x');
`,
    );
    // Every entry's declarations resolve (a missing one is an implicit-any error under strict).
    writeFileSync(
      join(installed.project, 'entries.ts'),
      entries
        .map(
          (entry, index) =>
            `import * as entry${index} from '${specifier(entry)}';\nexport { entry${index} };\n`,
        )
        .join(''),
    );
    // The agent entry under `skipLibCheck: false`, without the optional MCP peer installed.
    writeFileSync(
      join(installed.project, 'agent-consumer.ts'),
      `import { createAgent, type McpServerConfig } from '${manifest.name}/agent';\nexport const server: McpServerConfig = { transport: 'http', url: 'http://127.0.0.1:1/mcp' };\nexport const create = createAgent;\n`,
    );
    const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
    const strictLib = {
      compilerOptions: {
        target: 'ES2023',
        lib: ['ES2023', 'DOM'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(repoRoot, 'node_modules/@types')],
      },
      files: ['agent-consumer.ts'],
    };
    writeFileSync(join(installed.project, 'tsconfig.agent.json'), JSON.stringify(strictLib, null, 2));
    expect(existsSync(join(installed.project, 'node_modules/@modelcontextprotocol/sdk'))).toBe(false);
    const agentRun = await installed.run(process.execPath, [tsc, '-p', 'tsconfig.agent.json']);
    expect([agentRun.code, agentRun.stdout + agentRun.stderr]).toEqual([0, '']);
    const runs = await Promise.all(
      (['nodenext', 'bundler'] as const).map((resolution) => {
        const config = {
          compilerOptions: {
            target: 'ES2023',
            lib: ['ES2023', 'DOM'],
            module: resolution === 'nodenext' ? 'nodenext' : 'preserve',
            moduleResolution: resolution,
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
            typeRoots: [join(repoRoot, 'node_modules/@types')],
          },
          files: ['consumer.ts', 'entries.ts'],
        };
        writeFileSync(
          join(installed.project, `tsconfig.${resolution}.json`),
          JSON.stringify(config, null, 2),
        );
        return installed.run(process.execPath, [tsc, '-p', `tsconfig.${resolution}.json`]);
      }),
    );
    expect(runs.map((run) => [run.code, run.stdout + run.stderr])).toEqual([
      [0, ''],
      [0, ''],
    ]);
  });

  it('runs `npx switchyard --version` and `switchyard help` from the built bin (with its shebang)', async () => {
    const version = await installed.run('npx', ['switchyard', '--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
    const help = await installed.run(join(installed.project, 'node_modules/.bin/switchyard'), ['help']);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining('usage: switchyard <command>') });
    expect(
      readFileSync(join(installed.project, 'node_modules', manifest.name, 'dist/cli/main.js'), 'utf8'),
    ).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it('runs the demo from the built bin', async () => {
    const run = await installed.run(join(installed.project, 'node_modules/.bin/switchyard'), ['demo']);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('4 requests, each accepted') });
  });

  it('answers `switchyard ask` from the bundled bin, offline on the built-in emulator (no API key)', async () => {
    const env = Object.fromEntries(Object.entries(childEnv()).filter(([name]) => !/API_KEY$/.test(name)));
    const bin = join(installed.project, 'node_modules/.bin/switchyard');
    const run = await installed.run(bin, ['ask', 'Say hello.'], { env });
    expect(run).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('This answer comes from the **Switchyard emulator**'),
      stderr: expect.stringContaining('using the built-in emulator'),
    });
  });

  it('reads a YAML --config through the parser bundled into the bin (an unknown key named with its line)', async () => {
    const config = join(installed.project, 'switchyard.yaml');
    writeFileSync(config, 'adapters:\n  openai: { type: openai, bad_key: 1 }\n');
    const bin = join(installed.project, 'node_modules/.bin/switchyard');
    const run = await installed.run(bin, ['ask', '--config', config, 'Say hello.']);
    expect(run).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('line 2: adapters.openai.bad_key: Unrecognized key: "bad_key"'),
    });
  });

  it('replays a recorded stream through the built CLI', async () => {
    const file = join(repoRoot, 'test/fixtures/recorded/anthropic/anthropic-text.chunks.txt');
    const bin = join(installed.project, 'node_modules/.bin/switchyard');
    const run = await installed.run(bin, ['replay', file, '--protocol', 'anthropic-messages']);
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(events[0]).toBe('message-start');
    expect(events.at(-1)).toBe('finish');
  });
});
