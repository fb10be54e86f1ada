/** The package surface: every `exports` entry maps to a source module that loads and exports its API. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/fixtures.ts';

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  license: string;
  bin: Record<string, string>;
  keywords: string[];
  homepage: string;
  repository: { type: string; url: string };
  bugs: { url: string };
  files: string[];
  exports: Record<string, { default: string; types: string } | string>;
  engines: { node: string };
  sideEffects: boolean;
  type: string;
};

const expectedExports: Record<string, string[]> = {
  '.': [
    'parseTranscript',
    'stringifyTranscript',
    'AdapterError',
    'isRateLimitError',
    'createSwitchyard',
    'reprice',
    'tool',
    'createJsonLinesReporter',
  ],
  './adapter-kit': ['ToolIdMap', 'StreamBuilder', 'JsonFragments', 'registerProviderType', 'classifyError'],
  './routing': ['Availability', 'createMemoryAvailabilityStore', 'routingDecision', 'matchesGlob'],
  './otel': ['createOpenTelemetryObserver'],
  './state': ['createStateStore', 'createMemoryStateStore', 'createRedisStateStore', 'StateUnavailableError'],
  './testing': ['assertStreamInvariants', 'startEmulator', 'createCassette', 'createScriptedAdapter'],
  './anthropic': ['createAnthropic'],
  './openai': ['createOpenAI'],
  './openai-responses': ['createOpenAIResponses', 'responsesPresets'],
  './openai-compatible': ['createOpenAICompatible', 'presets', 'parseHostConfig'],
  './gemini': ['createGemini'],
  './bedrock': ['createBedrock'],
  './vertex': ['createVertex'],
  './agent': [
    'createAgent',
    'tool',
    'toolOutput',
    'CancellationController',
    'connectMcpTools',
    'parseAgentState',
  ],
  './gateway': ['createGateway', 'createMemoryStore', 'codecs'],
};

describe('package.json', () => {
  it('is ESM only, side-effect free, for Node ≥ 22', () => {
    expect(manifest.type).toBe('module');
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.engines.node).toBe('>=22');
  });

  it('is published as switchyard-ai (the name switchyard is taken) and installs the switchyard command', () => {
    expect(manifest.name).toBe('switchyard-ai');
    expect(manifest.bin).toEqual({ switchyard: './dist/cli/main.js' });
    expect(readFileSync(join(repoRoot, 'src/cli/main.ts'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it('declares its licence with the LICENSE text, and where its repository, homepage and issues are', () => {
    expect(manifest.license).toBe('Apache-2.0');
    expect(readFileSync(join(repoRoot, 'LICENSE'), 'utf8')).toContain(
      'Apache License\n                           Version 2.0',
    );
    expect(manifest.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/switchyard-ai/switchyard.git',
    });
    expect(manifest.homepage).toBe('https://github.com/switchyard-ai/switchyard#readme');
    expect(manifest.bugs.url).toBe('https://github.com/switchyard-ai/switchyard/issues');
    expect(manifest.keywords).toEqual(expect.arrayContaining(['llm', 'anthropic', 'openai', 'gemini']));
    expect(manifest.files).toEqual(expect.arrayContaining(['dist', 'src', 'docs', 'LICENSE', 'README.md']));
  });

  for (const [entry, names] of Object.entries(expectedExports)) {
    it(`exports ${entry} with ${names.join(', ')}`, async () => {
      const target = manifest.exports[entry];
      if (typeof target !== 'object') throw new Error(`missing export ${entry}`);
      const source = join(repoRoot, target.default.replace('./dist/', 'src/').replace(/\.js$/, '.ts'));
      expect(existsSync(source)).toBe(true);
      const module = (await import(source)) as Record<string, unknown>;
      for (const name of names) expect(module[name], `${entry} → ${name}`).toBeDefined();
    });
  }
});
