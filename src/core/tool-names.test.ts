import { describe, expect, it } from 'vitest';
import { hashId } from './tool-id-map.ts';
import { safeToolName, safeToolNamePattern } from './tool-names.ts';

/** The rule as first written (every character rewritten, then cut): what every turn must keep matching. */
const reference = (name: string) => {
  if (safeToolNamePattern.test(name)) return name;
  const kept = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  const head = /^[a-zA-Z_]/.test(kept) ? kept : `t_${kept}`;
  return `${head.slice(0, 55)}_${hashId(name, 8)}`;
};

describe('safeToolName', () => {
  it.each([
    'get_weather',
    'github.create_issue:v2',
    '9lives',
    '.dot',
    `${'a.'.repeat(40)}tail`,
    `1${'x'.repeat(100)}`,
    'ünïcode tool',
  ])('%s: the same safe name as the rule always gave (stable across turns and versions)', (name) => {
    expect(safeToolName(name)).toBe(reference(name));
    expect(safeToolName(name)).toMatch(safeToolNamePattern);
  });

  it('two names alike in their first 55 characters stay apart (the digest covers the whole name)', () => {
    const head = 'x.'.repeat(40);
    expect(safeToolName(`${head}a`)).not.toBe(safeToolName(`${head}b`));
  });
});
