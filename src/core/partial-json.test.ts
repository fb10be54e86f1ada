import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonFragments, repairJsonObject } from './partial-json.ts';

afterEach(() => vi.restoreAllMocks());

describe('JsonFragments', () => {
  it('streaming tool input is linear: 20,000 fragments cost one JSON.parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const fragments = new JsonFragments();
    const items = Array.from({ length: 20_000 }, (_, index) => index);
    const text = JSON.stringify({ items });
    const size = Math.ceil(text.length / 20_000);
    for (let offset = 0; offset < text.length; offset += size)
      fragments.append(text.slice(offset, offset + size));
    expect(parse).not.toHaveBeenCalled();
    expect(fragments.parse()).toEqual({ items });
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it('empty input is {}', () => {
    expect(new JsonFragments().parse()).toEqual({});
  });

  it('a JSON value that is not an object is rejected', () => {
    const fragments = new JsonFragments();
    fragments.append('[1]');
    expect(fragments.parse()).toBeUndefined();
  });
});

describe('repairJsonObject', () => {
  it.each([
    ['{"a": 1, "b": "hel', { a: 1, b: 'hel' }],
    ['{"a": [1, 2', { a: [1, 2] }],
    ['{"a": {"b": "c"}, "d"', { a: { b: 'c' } }],
    ['{"a": 1,', { a: 1 }],
    ['{"a": "x\\', { a: 'x' }],
    ['{"nested": {"deep": [{"k": "v"', { nested: { deep: [{ k: 'v' }] } }],
  ])('closes %s', (text, expected) => {
    expect(repairJsonObject(text)).toEqual(expected);
  });

  it('gives up (undefined) on text that is not an object', () => {
    expect(repairJsonObject('nonsense')).toBeUndefined();
  });
});

describe('repairJsonObject completes cut-off values', () => {
  it.each([
    ['{"a":1,"b": tr', { a: 1, b: true }],
    ['{"a":1,"b": fals', { a: 1, b: false }],
    ['{"a":[n', { a: [null] }],
    ['{"a":1,"b":-', { a: 1 }],
    ['{"a":1,"b":1.', { a: 1, b: 1 }],
    ['{"a":1,"b":-1e+', { a: 1, b: -1 }],
    ['{"a":1,"b":12', { a: 1, b: 12 }],
    ['{"a":"x\\u00', { a: 'x' }],
    ['{"a":"x\\u00e9', { a: 'xé' }],
    ['{"a":"x\\\\', { a: 'x\\' }],
    ['{"a":1,"b', { a: 1 }],
    ['{"a":1,"b":', { a: 1 }],
    ['{"a":1,"b"  ', { a: 1 }],
    ['{', {}],
    ['{"a":{"b":"x  ', { a: { b: 'x  ' } }],
  ])('repairs %s', (text, expected) => {
    expect(repairJsonObject(text)).toEqual(expected);
  });

  it.each(['{"a":1}}', '{"a":tx', '{"a":01,', '{"a" 1', '[1,2', '"text', '{"a":"\\uZZZZ"'])(
    'rejects malformed text %s',
    (text) => {
      expect(repairJsonObject(text)).toBeUndefined();
    },
  );

  it('does not overflow the stack on deeply nested cut-off input', () => {
    expect(repairJsonObject('{"a":'.repeat(100_000))).toBeUndefined();
  });
});
