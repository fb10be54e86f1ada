import { describe, expect, it } from 'vitest';
import { hashId, ToolIdMap, type ToolIdRule } from './tool-id-map.ts';

/** A provider-like rule for these tests: exactly 6 lowercase letters. */
const sixLetters: ToolIdRule = {
  test: (id) => /^[a-z]{6}$/.test(id),
  rewrite: (id) =>
    hashId(id, 6)
      .toLowerCase()
      .replace(/[^a-z]/g, 'q'),
};

describe('hashId', () => {
  it('digests the empty id into alphanumeric characters too (not the text "undefined")', () => {
    expect(hashId('', 8)).toMatch(/^[a-zA-Z0-9]{8}$/);
    expect(hashId('', 40)).toMatch(/^[a-zA-Z0-9]{40}$/);
  });

  it('keeps the digest of every other id as it was (ids already sent stay the same)', () => {
    expect([hashId('toolu_01', 8), hashId('calc.add', 8), hashId('x'.repeat(100), 24)]).toEqual([
      'WCKNEqaf',
      'HgoyKCQz',
      'PwcCjCaISfYw8u03Taj3jYBm',
    ]);
  });
});

describe('ToolIdMap', () => {
  it('maps a provider id to a canonical id and back (tool id round-trip)', () => {
    const map = new ToolIdMap();
    const canonical = map.toCanonical('anthropic', 'toolu_01');
    expect(canonical).toMatch(/^tu_/);
    expect(map.toProvider('anthropic', canonical)).toBe('toolu_01');
  });

  it('a host reusing provider ids across responses still yields distinct canonical ids and distinct wire ids', () => {
    const map = new ToolIdMap();
    const first = map.toCanonical('host', 'call_0');
    const second = map.toCanonical('host', 'call_0');
    expect(first).not.toBe(second);
    const wireFirst = map.toProvider('host', first);
    const wireSecond = map.toProvider('host', second);
    expect(wireSecond).toBe('call_0');
    expect(wireFirst).not.toBe(wireSecond);
    // Stable afterwards: the tool result of the first call gets the same wire id.
    expect(map.toProvider('host', first)).toBe(wireFirst);
  });

  it('a canonical id sent out unchanged and later issued by the provider does not collide', () => {
    const map = new ToolIdMap();
    expect(map.toProvider('openai', 'call_1')).toBe('call_1');
    const issued = map.toCanonical('openai', 'call_1');
    expect(issued).not.toBe('call_1');
    expect(map.toProvider('openai', issued)).toBe('call_1');
    expect(map.toProvider('openai', 'call_1')).not.toBe('call_1');
  });

  it('rewrites ids a provider cannot take, uniquely and stably', () => {
    const map = new ToolIdMap();
    const first = map.toProvider('host', 'tu_01ABCDEFGHJKMNPQRSTVWXYZ00', sixLetters);
    expect(first).toMatch(/^[a-z]{6}$/);
    expect(map.toProvider('host', 'tu_01ABCDEFGHJKMNPQRSTVWXYZ00', sixLetters)).toBe(first);
    expect(map.toProvider('host', 'abcdef', sixLetters)).toBe('abcdef');
  });

  it('an id issued under one rule and sent under a stricter one (two families on one adapter) is rewritten, stably', () => {
    const map = new ToolIdMap();
    const canonical = map.toCanonical('vertex', 'Gemini.call/1');
    const strict = map.toProvider('vertex', canonical, sixLetters);
    expect(strict).toMatch(/^[a-z]{6}$/);
    expect(map.toProvider('vertex', canonical, sixLetters)).toBe(strict);
    // The looser family still gets one stable id for the call (the rewritten one now).
    expect(map.toProvider('vertex', canonical)).toBe(strict);
  });

  it('survives toJSON / fromJSON, including ids with NUL characters', () => {
    const map = new ToolIdMap();
    const canonical = map.toCanonical('host', 'odd\u0000id');
    const restored = ToolIdMap.fromJSON(JSON.parse(JSON.stringify(map.toJSON())));
    expect(restored.toProvider('host', canonical)).toBe('odd\u0000id');
  });
});
