/** docs/testing.md names only what `switchyard-ai/testing` exports, and is linked from the README. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as testing from 'switchyard-ai/testing';
import { repoRoot } from './support/fixtures.ts';

const guide = readFileSync(join(repoRoot, 'docs/testing.md'), 'utf8');

describe('docs/testing.md', () => {
  it('imports from switchyard-ai/testing only names the entry exports', () => {
    const imported = [...guide.matchAll(/import \{([^}]+)\} from 'switchyard-ai\/testing'/g)].flatMap(
      (match) => match[1]!.split(',').map((name) => name.trim()),
    );
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((name) => !(name in testing))).toEqual([]);
  });

  it('every function it names in backticks as a call exists in the entry', () => {
    const called = [...guide.matchAll(/`([a-z][A-Za-z]+)\(/g)].map((match) => match[1]!);
    const kit = ['startEmulator', 'createScriptedAdapter', 'createCassette', 'runAdapterSuite'];
    expect(kit.filter((name) => !called.includes(name) && !guide.includes(`\`${name}\``))).toEqual([]);
    const fromKit = called.filter((name) =>
      /^(create|start|run|assert|find|collect|anthropic|openai|google|protocol)/.test(name),
    );
    expect(
      fromKit.filter(
        (name) =>
          !(name in testing) &&
          !['createSwitchyard', 'createAgent', 'createOpenAI', 'createMyHost'].includes(name),
      ),
    ).toEqual([]);
  });

  it('is linked from the README', () => {
    expect(readFileSync(join(repoRoot, 'README.md'), 'utf8')).toContain('docs/testing.md');
  });
});
