import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  countEscapedKeys,
  losesNumberDigits,
  maxEscapedKeys,
  opensMoreThan,
  parseJson,
  parseJsonKeepingDigits,
  parseJsonString,
  TooManyEscapedKeysError,
} from './json-text.ts';

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

  it('one escaped key written again and again, and in two spellings, is one key: the last value at the first place', () => {
    const repeated = `{${Array.from({ length: 1000 }, (_, index) => `"\\n":${index}`).join(',')},"b":0}`;
    expect(parseJson(repeated)).toEqual({ '\n': 999, b: 0 });
    const parsed = parseJson('{"\\u0041":1,"\\n":2,"A":3,"\\u0041":4}') as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['A', '\n']);
    expect(parsed).toEqual({ A: 4, '\n': 2 });
  });

  it('refuses a text with more escaped keys than maxEscapedKeys (TooManyEscapedKeysError), and parses one at the limit', () => {
    const keys = (count: number) =>
      `{${Array.from({ length: count }, (_, index) => `"\\n${index}":0`).join(',')}}`;
    expect(Object.keys(parseJson(keys(maxEscapedKeys)) as object)).toHaveLength(maxEscapedKeys);
    expect(() => parseJson(keys(maxEscapedKeys + 1))).toThrow(TooManyEscapedKeysError);
  }, 20_000);

  it.each([
    ['[{},[],{}]', 4, false],
    ['[{},[],{}]', 3, true],
    ['{"a":"{[{[{[","b":"\\"[{"}', 1, false],
    ['{"a":"\\\\","b":[[]]}', 3, false],
    ['{"a":"\\\\","b":[[]]}', 2, true],
    ['["\\\\\\"[[[", [[]]]', 3, false],
    ['["\\\\\\"[[[", [[]]]', 2, true],
  ])('opensMoreThan(%s, %i) is %s: objects and arrays counted, strings skipped', (text, limit, more) => {
    expect(opensMoreThan(text, limit)).toBe(more);
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
    // Escaped keys in text that is no JSON: never parsed as if it were.
    for (const text of ['x\\":1}', '{"a\\n\u0001":1}', '{"a\\n":1,}', '{"a\\n":1}x', '{"\\u00zz":1}'])
      expect(() => parseJson(text), text).toThrow(SyntaxError);
    const overLimit = `{${Array.from({ length: maxEscapedKeys + 1 }, () => '"\\n":0').join(',')}`;
    expect(() => parseJson(overLimit)).toThrow(SyntaxError);
  });

  it('accepts exactly the text JSON.parse accepts, for valid text with escaped keys cut or added to (property)', () => {
    const key = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', 'é'), maxLength: 3 });
    const value = fc.dictionary(key, fc.oneof(fc.string(), fc.integer(), fc.dictionary(key, fc.integer())));
    const edit = fc.tuple(
      fc.nat(),
      fc.nat(),
      fc.constantFrom('', '"', '\\', ':', ',', '{', '}', 'u', ' ', '\u0001'),
    );
    fc.assert(
      fc.property(value, fc.array(edit, { maxLength: 3 }), (generated, edits) => {
        let text = JSON.stringify(generated);
        for (const [at, cut, added] of edits) {
          const index = at % (text.length + 1);
          text = text.slice(0, index) + added + text.slice(index + (cut % 2));
        }
        const accepts = (parse: (text: string) => unknown) => {
          try {
            parse(text);
            return true;
          } catch (error) {
            expect(error).toBeInstanceOf(SyntaxError);
            return false;
          }
        };
        expect([text, accepts(parseJson)]).toEqual([text, accepts((t) => JSON.parse(t) as unknown)]);
      }),
      { numRuns: 2000 },
    );
  });

  it('parses a text with many escaped keys in two JSON.parse calls, however many keys (not one per key, not a check first)', () => {
    const body = (count: number) =>
      `{"messages":[${Array.from({ length: count }, (_, index) => `{"x\\"1":${index},"\\u0041":"${'p'.repeat(50)}"}`).join(',')}]}`;
    const parse = vi.spyOn(JSON, 'parse');
    try {
      for (const count of [1, 10, 1000]) {
        parse.mockClear();
        const parsed = parseJson(body(count)) as { messages: Array<Record<string, unknown>> };
        expect(parsed.messages).toHaveLength(count);
        expect(parsed.messages[count - 1]).toEqual({ 'x"1': count - 1, A: 'p'.repeat(50) });
        expect([count, parse.mock.calls.length]).toEqual([count, 2]);
      }
    } finally {
      parse.mockRestore();
    }
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

describe('parseJson on text whose keys are written with \\u escapes', () => {
  /** `value` as JSON text, each key character written as a `\uXXXX` escape where `escape` says so. */
  const escapeKeys = (value: unknown, escape: (index: number) => boolean): string => {
    let count = 0;
    const key = (name: string) =>
      `"${[...name]
        .map((character) =>
          escape(count++)
            ? `\\u${character.codePointAt(0)!.toString(16).padStart(4, '0')}`
            : JSON.stringify(character).slice(1, -1),
        )
        .join('')}"`;
    const write = (node: unknown): string => {
      if (Array.isArray(node)) return `[${node.map(write).join(',')}]`;
      if (typeof node === 'object' && node !== null)
        return `{${Object.entries(node)
          .map(([name, child]) => `${key(name)}:${write(child)}`)
          .join(',')}}`;
      return JSON.stringify(node);
    };
    return write(value);
  };

  it('returns the same value as the text without escapes (property)', () => {
    const key = fc.string({ unit: fc.constantFrom('a', 'b', '1', '_', '"', '\\', '\n'), maxLength: 3 });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(key, tie('node'), { maxKeys: 4 }).filter((object) => !('__proto__' in object)),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), (generated, pattern) => {
        const text = escapeKeys(generated, (index) => pattern[index % pattern.length]!);
        expect(parseJson(text)).toEqual(generated);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps JSON.parse’s rules: the last of duplicate keys at the first’s place, integer keys first, an own __proto__', () => {
    expect(Object.entries(parseJson('{"b":0,"a":1,"\\u0061":2,"\\u0031":3}') as object)).toEqual([
      ['1', 3],
      ['b', 0],
      ['a', 2],
    ]);
    expect(parseJson('{"\\u0061":1,"a":2}')).toEqual({ a: 2 });
    const proto = parseJson('{"\\u005f_proto__":{"polluted":true},"x":{"__proto__":1,"\\n":2}}') as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.hasOwn(proto, '__proto__')).toBe(true);
    expect(Object.keys(proto.x as object)).toEqual(['__proto__', '\n']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseJsonKeepingDigits', () => {
  it('writes a number its parse would change as written, and leaves the rest as parsed', () => {
    expect(JSON.stringify(parseJsonKeepingDigits('{"id": 1234567890123456789, "n": 1.5, "s": "x"}'))).toBe(
      '{"id":1234567890123456789,"n":1.5,"s":"x"}',
    );
  });

  it('gives up (undefined, never a throw) on nesting too deep for the reviver and on an escaped key', () => {
    const depth = 200_000;
    expect(
      parseJsonKeepingDigits(`${'{"a":'.repeat(depth)}1234567890123456789${'}'.repeat(depth)}`),
    ).toBeUndefined();
    expect(parseJsonKeepingDigits('{"\\n": 1234567890123456789}')).toBeUndefined();
  });
});

describe('countEscapedKeys', () => {
  it('counts the keys JSON.stringify writes with an escape (quote, backslash, control, lone surrogate), for generated values (property)', () => {
    const key = fc.string({
      unit: fc.constantFrom('a', '"', '\\', '\n', '\u0001', 'é', '\ud800', '\udc00', '\ud83d\ude00'),
      maxLength: 3,
    });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(fc.string(), fc.integer(), fc.constant(undefined)),
        fc.array(tie('node')),
        fc.dictionary(key, tie('node')),
      ),
    })).node;
    fc.assert(
      fc.property(value, (generated) => {
        const text = JSON.stringify(generated) ?? '';
        // Every escaped key of the text: a string holding a backslash, then a colon.
        const written = [...text.matchAll(/"((?:[^"\\]|\\.)*)"\s*:/g)].filter(([, inner]) =>
          inner!.includes('\\'),
        );
        expect(countEscapedKeys(generated)).toBe(written.length);
      }),
    );
  });

  it('agrees with parseJson’s bound: maxEscapedKeys such keys read back, one more does not', () => {
    const withKeys = (count: number) => ({
      items: Array.from({ length: count }, (_, index) => ({ [`"${index}`]: index })),
    });
    expect(countEscapedKeys(withKeys(maxEscapedKeys))).toBe(maxEscapedKeys);
    expect(() => parseJson(JSON.stringify(withKeys(maxEscapedKeys)))).not.toThrow();
    expect(countEscapedKeys(withKeys(maxEscapedKeys + 1))).toBe(maxEscapedKeys + 1);
    expect(() => parseJson(JSON.stringify(withKeys(maxEscapedKeys + 1)))).toThrow(TooManyEscapedKeysError);
    expect(countEscapedKeys(withKeys(maxEscapedKeys + 50), 10)).toBe(11);
  });
});
