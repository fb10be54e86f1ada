/**
 * A model id is parsed once (#19): `provider:name` is split in one function (`splitModelId`,
 * src/core/ids.ts) and resolved by the registry into a bound model (provider, wire name, canonical
 * id); the router hands the adapter that bound model (`providers/common/routed.ts`), so nothing
 * below re-splits the string. This test fails when a new ad-hoc split of a colon appears in src/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinModelId, splitModelId, wireNameFor } from '../src/core/ids.ts';
import { repoRoot } from './support/fixtures.ts';

/** Where a colon may be split, and why (none of the others is a model id). */
const allowed: Record<string, string> = {
  'src/core/ids.ts': 'splitModelId itself',
  'src/providers/bedrock/model-id.ts': 'an AWS ARN (arn:aws:bedrock:region:…), not a model id',
  'src/providers/bedrock/errors.ts': 'an AWS error type (prefix#Name:detail)',
  'src/state/redis.ts': 'a sorted-set member (id:micros)',
  'src/gateway/artifacts.ts': 'a gateway store key (kind:scope:id), not a model id',
};

const colonSplit = /\b(?:indexOf|lastIndexOf)\(\s*':'\s*\)|\.split\(\s*':'\s*\)/;

function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !/\.test\.ts$|\.test-d\.ts$/.test(name))
      found.push(relative(repoRoot, path));
  }
  return found;
}

describe('a model id is parsed once', () => {
  it('no ad-hoc split of a colon outside splitModelId and the resolver', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(join(repoRoot, 'src'))) {
      if (Object.keys(allowed).some((prefix) => file.startsWith(prefix))) continue;
      readFileSync(join(repoRoot, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (colonSplit.test(line)) offenders.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders, 'use splitModelId / wireNameFor (src/core/ids.ts) or the resolved model').toEqual([]);
  });

  it('splits at the first colon; a bare name has no provider; an adapter strips only its own prefix', () => {
    expect(splitModelId('ollama:qwen3:8b')).toEqual({ provider: 'ollama', name: 'qwen3:8b' });
    expect(splitModelId('gpt-5')).toEqual({ provider: undefined, name: 'gpt-5' });
    expect(splitModelId(':x')).toEqual({ provider: undefined, name: ':x' });
    expect(joinModelId('openai', 'gpt-5')).toBe('openai:gpt-5');
    expect(wireNameFor('openai', 'openai:gpt-5')).toBe('gpt-5');
    expect(wireNameFor('ollama', 'qwen3:8b')).toBe('qwen3:8b');
  });
});
