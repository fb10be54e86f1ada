/** The package surface: every `exports` entry maps to a source module that loads and exports its API. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/fixtures.ts';

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  exports: Record<string, { default: string; types: string } | string>;
  engines: { node: string };
  sideEffects: boolean;
  type: string;
};

const expectedExports: Record<string, string[]> = {
  '.': [
    'parseTranscript',
    'stringifyTranscript',
    'ToolIdMap',
    'StreamBuilder',
    'AdapterError',
    'isRateLimitError',
    'createSwitchyard',
    'reprice',
    'registerApi',
    'tool',
    'createJsonLinesReporter',
  ],
  './otel': ['createOpenTelemetryObserver'],
  './testing': ['assertStreamInvariants', 'startEmulator', 'createCassette', 'createScriptedAdapter'],
  './anthropic': ['createAnthropic'],
  './openai': ['createOpenAI'],
  './openai-responses': ['createOpenAIResponses', 'responsesPresets'],
  './openai-compatible': ['createOpenAICompatible', 'presets', 'parseHostConfig'],
  './gemini': ['createGemini'],
};

describe('package.json', () => {
  it('is ESM only, side-effect free, for Node ≥ 22', () => {
    expect(manifest.type).toBe('module');
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.engines.node).toBe('>=22');
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
