import { describe, expect, it } from 'vitest';
import { StringValue, WrappedValue } from './output-text.ts';

/** `text` through a fresh transform in two deltas split at `at` (and whole when `at` is its length). */
function unwrapped(text: string, at: number): string {
  const transform = new WrappedValue();
  return transform.feed(text.slice(0, at)) + transform.feed(text.slice(at)) + transform.end();
}

/** The text's output for every split, each the same. */
function everySplit(text: string): string {
  const outputs = new Set<string>();
  for (let at = 0; at <= text.length; at++) outputs.add(unwrapped(text, at));
  expect(outputs.size).toBe(1);
  return [...outputs][0]!;
}

describe('an answer wrapped as { value } is read back as the value', () => {
  it.each([
    ['{"value":[1,2]}', '[1,2]'],
    ['{ "value" : [ 1, 2 ] }', '[ 1, 2 ]'],
    ['\n{\n  "value": {"a": {"b": "}"}}\n}\n', '{"a": {"b": "}"}}'],
    ['{"value":"a \\"}\\" b"}', '"a \\"}\\" b"'],
    ['{"value":"back\\\\"}', '"back\\\\"'],
    ['{"value":12.5e3 }', '12.5e3'],
    ['{"value":-7}', '-7'],
    ['{"value":true}', 'true'],
    ['{"value":null}', 'null'],
    ['{"value":"Percussion"}', '"Percussion"'],
    ['{\t"value"\r\n:\t"x"}', '"x"'],
    ['{"value":[{"a":"]"},[]],"other":1}', '[{"a":"]"},[]]'],
  ])('%j → %j, however the text is split', (text, value) => {
    expect(everySplit(text)).toBe(value);
  });

  it.each([['[1,2]'], ['{"other":1}'], ['{"values":1}'], ['Sorry, I cannot.'], ['{"value"'], ['']])(
    'a text that is not the wrapper goes out as written: %j',
    (text) => {
      expect(everySplit(text)).toBe(text);
    },
  );

  it('streams the value as it comes: only the opening is held', () => {
    const transform = new WrappedValue();
    expect(transform.feed('{"val')).toBe('');
    expect(transform.feed('ue": [1,')).toBe('[1,');
    expect(transform.feed(' 2]')).toBe(' 2]');
    expect(transform.feed('\n}')).toBe('');
    expect(transform.end()).toBe('');
  });
});

describe('what a wrapped answer holds beside its value is reported once', () => {
  /** The extra text reported for `text` split at `at`, and the value given out. */
  function extras(text: string, at: number): { value: string; reported: string[] } {
    const reported: string[] = [];
    const transform = new WrappedValue((extra) => reported.push(extra));
    const value = transform.feed(text.slice(0, at)) + transform.feed(text.slice(at)) + transform.end();
    return { value, reported };
  }

  it.each([
    ['{"value":[1,2],"other":1}', '[1,2]', ',"other":1}'],
    ['{"value":7 , "note":"x"}', '7', ', "note":"x"}'],
    ['{"value":"a"} trailing', '"a"', 'trailing'],
    ['{"value":{"a":1}}}', '{"a":1}', '}'],
  ])('%j: the value %j, and from %j on reported, however split', (text, value, extra) => {
    for (let at = 0; at <= text.length; at++) {
      const result = extras(text, at);
      expect(result.value).toBe(value);
      expect(result.reported).toHaveLength(1);
      // From where the extra begins to the end of the delta it began in.
      expect(result.reported[0]!.length).toBeGreaterThan(0);
      expect(extra.startsWith(result.reported[0]!)).toBe(true);
    }
    expect(extras(text, text.length).reported).toEqual([extra]);
  });

  it.each([['{"value":[1,2]}'], ['{ "value" : 3 }\n'], ['{"value":null}  '], ['[1,2]'], ['{"value":']])(
    'nothing beside the value (or no wrapper): nothing reported: %j',
    (text) => {
      for (let at = 0; at <= text.length; at++) expect(extras(text, at).reported).toEqual([]);
    },
  );
});

/** `text` through a fresh StringValue in deltas of `size` characters. */
function unquoted(text: string, size: number): string {
  const transform = new StringValue();
  let out = '';
  for (let at = 0; at < text.length; at += size) out += transform.feed(text.slice(at, at + size));
  return out + transform.end();
}

describe('an enum answer given as a JSON string is read back unquoted', () => {
  it.each([
    ['"Percussion"', 'Percussion'],
    ['  \n"Percussion" \n', 'Percussion'],
    ['"a \\"b\\" \\\\ \\/ \\n \\u00e9\\u00E9"', 'a "b" \\ / \n éé'],
    ['"\\ud83e\\udd41 drum"', '🥁 drum'],
    ['"x"trailing', 'x'],
  ])('%j → %j, in deltas of every size', (text, value) => {
    for (let size = 1; size <= text.length; size++) expect(unquoted(text, size)).toBe(value);
  });

  it.each([['Percussion'], [' Percussion'], ['']])('a bare value goes out as written: %j', (text) => {
    for (let size = 1; size <= Math.max(text.length, 1); size++) expect(unquoted(text, size)).toBe(text);
  });
});
