/**
 * The scripts run on Redis Cluster: every key a script touches is one of its declared KEYS (never a
 * name built inside the script), and the KEYS the store passes share one hash tag, so one slot.
 * (`redis-cluster.test.ts` runs the stores on a cluster-mode Redis, which refuses anything else.)
 */
import { describe, expect, it } from 'vitest';
import { keyPart, stateKeys, valueKeys, withdrawnKey } from './redis.ts';
import {
  admitScript,
  circuitScript,
  settleScript,
  storeValueScript,
  valueScript,
  withdrawScript,
} from './scripts.ts';

/** The part of a key Redis Cluster hashes: the first non-empty `{…}`, else the whole key. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
}

/** Commands whose first argument is not a key. */
const keyless = new Set(['TIME', 'PUBLISH']);

describe('scripts on Redis Cluster', () => {
  const scripts = { admitScript, settleScript, circuitScript, withdrawScript, storeValueScript, valueScript };
  for (const [name, script] of Object.entries(scripts)) {
    it(`${name}: every command touches a declared key (KEYS[n]), none built inside the script`, () => {
      const calls = [...script.matchAll(/redis\.call\('(\w+)'(?:,\s*([^,)]+))?/g)];
      expect(calls.length).toBeGreaterThan(0);
      for (const [, command, firstArgument] of calls) {
        if (keyless.has(command!)) continue;
        expect(`${command} ${firstArgument}`).toMatch(/^\w+ KEYS\[\d\]$/);
      }
    });
  }

  it('the keys of one gateway key share one hash tag (one slot), whatever its name; two names never share one', () => {
    const names = ['team-a', 'a:b', 'a{b}c', '{x}', 'a b', 'ünï', '}{', '', '\nb', '\u00ab', '😀'];
    const tags = new Set<string>();
    for (const name of names) {
      const keys = stateKeys('switchyard', name, '20261126', '202611');
      expect(keys).toHaveLength(5);
      keys.push(withdrawnKey('switchyard', name));
      expect(new Set(valueKeys('switchyard', name, 'resp_1').map(hashTag))).toEqual(new Set([keyPart(name)]));
      const keyTags = new Set(keys.map(hashTag));
      expect([...keyTags]).toEqual([keyPart(name)]);
      tags.add([...keyTags][0]!);
    }
    expect(tags.size).toBe(names.length);
  });
});
