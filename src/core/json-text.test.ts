import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { losesNumberDigits, parseJson, parseJsonString } from './json-text.ts';

/** Parses `{first: 0, [key]: 1}`: afterwards V8's JSON.parse meets `key` as the one key that followed `first`. */
function prime(first: string, key: string): void {
  expect(parseJson(JSON.stringify({ [first]: 0, [key]: 1 }))).toEqual({ [first]: 0, [key]: 1 });
}

describe('parseJson', () => {
  it('keeps an escaped key exact after another object had, in its place, the key its raw text starts with', () => {
    const cases: Array<[string, string]> = [
      ['\\', '"'],
      ['\\', '\n'],
      ['\\', '\u0001'],
      ['a\\"', 'a"b'],
      ['\\u004', 'A\u0000'],
    ];
    cases.forEach(([earlier, escaped], index) => {
      const first = `json-text-case-${index}`;
      prime(first, earlier);
      const value = { [first]: 0, [escaped]: 1, nested: [{ [first]: 0, [escaped]: { [escaped]: 2 } }] };
      expect(parseJson(JSON.stringify(value))).toEqual(value);
    });
  });

  it('returns every key exact for generated values whose keys are made of quotes, backslashes and control characters (property)', () => {
    const key = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\u0001', 'é'), maxLength: 3 });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(key, tie('node'), { maxKeys: 4 }).filter((object) => !('__proto__' in object)),
      ),
    })).node;
    fc.assert(
      fc.property(value, (generated) => {
        expect(parseJson(JSON.stringify(generated))).toEqual(generated);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps JSON.parse semantics on the exact path: duplicate keys, own __proto__, numbers, literals, whitespace', () => {
    const text =
      ' { "\\"" : 1 , "\\"" : [ -0 , 1.5e3 , true , false , null , "x\\u0041" ] , "__proto__" : { "a" : 2 } } ';
    const parsed = parseJson(text) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['"', '__proto__']);
    expect(parsed['"']).toEqual([-0, 1500, true, false, null, 'xA']);
    expect(Object.is((parsed['"'] as number[])[0], -0)).toBe(true);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(parseJson('[1,{"a\\\\":[]},"\\\\"]')).toEqual([1, { 'a\\': [] }, '\\']);
  });

  it('parses deep nesting with an escaped key without a stack overflow', () => {
    const depth = 100_000;
    const text = `${'{"\\n":'.repeat(depth)}1${'}'.repeat(depth)}`;
    let value = parseJson(text) as Record<string, unknown> | number;
    let levels = 0;
    while (typeof value === 'object') {
      value = value['\n'] as Record<string, unknown> | number;
      levels++;
    }
    expect(levels).toBe(depth);
  });

  it('throws JSON.parse’s own SyntaxError on invalid text', () => {
    expect(() => parseJson('{"a\\"":')).toThrow(SyntaxError);
    expect(() => parseJson('')).toThrow(SyntaxError);
  });

  it('decodes a lone string literal', () => {
    expect(parseJsonString('"a\\"\\u0041\\n"')).toBe('a"A\n');
  });
});

describe('losesNumberDigits', () => {
  it.each([
    ['{"id": 1234567890123456789}', true],
    ['{"id": -12345678901234567890}', true],
    ['{"x": 0.1234567890123456789}', true],
    ['[1, 2, 1234567890123456789]', true],
    ['{"a": 123456789.123456789}', true],
    ['{"amount": 123456789012345.678}', true],
    ['{"id": 9007199254740991}', false],
    ['{"pi": 3.141592653589793}', false],
    ['{"id": "1234567890123456789"}', false],
    ['["a\\"1234567890123456789"]', false],
    ['{"price": 1.10, "n": 1e3}', false],
  ])('%s → %s', (text, expected) => {
    expect(losesNumberDigits(text)).toBe(expected);
  });
});
