import { describe, expect, it } from 'vitest';
import { extractJson, jsonInstruction } from './json-mode.ts';

describe('extractJson', () => {
  it.each([
    ['JSON as it is', '{"a":1}', '{"a":1}'],
    ['whitespace around it trimmed', '\n {"a":1} \n', '{"a":1}'],
    ['a json code fence', '```json\n{"a":1}\n```', '{"a":1}'],
    ['a fence without a language', '```\n[1,2]\n```', '[1,2]'],
    ['a sentence and a fence', 'Sure! Here is the JSON:\n```json\n{"a":1}\n```\nHope it helps.', '{"a":1}'],
    ['a sentence before the object', 'Here you go: {"title":"t"}', '{"title":"t"}'],
    ['long numbers kept as written', 'x {"id":12345678901234567890}', '{"id":12345678901234567890}'],
    ['a fence on one line', '```json {"a":1}```', '{"a":1}'],
    ['a fence with CRLF lines', '```json\r\n{"a":1}\r\n```', '{"a":1}'],
    ['blanks after the fence’s language', '```json   \n{"a":1}\n   ```', '{"a":1}'],
  ])('%s', (_case, text, expected) => {
    expect(extractJson(text)).toBe(expected);
  });

  // A runaway reply: the fence pattern this replaced took 7–8 s on 3,000 blanks, 46 s on 5,000,
  // holding the event loop for every client (adversarial pass).
  it('a fence followed by thousands of blanks and no closing fence is read in one pass', () => {
    for (const text of ['```' + ' '.repeat(5000) + 'x', '```json\n{"a": ' + ' '.repeat(100_000)])
      expect(extractJson(text)).toBe(text);
  });

  it('text with no JSON in it is left as the model wrote it', () => {
    expect(extractJson('I cannot do that {here}.')).toBe('I cannot do that {here}.');
    // An array after a sentence stays the array (not its first element), whichever bracket opens first.
    expect(extractJson('Here is the list: [{"a": 1}]')).toBe('[{"a": 1}]');
    expect(extractJson('Here: {"value": [{"a": 1}]}')).toBe('{"value": [{"a": 1}]}');
    expect(extractJson('Here is the list: [1, 2] and done.')).toBe('[1, 2]');
  });
});

describe('jsonInstruction', () => {
  it('json_object (any object): the instruction alone, no schema', () => {
    const text = jsonInstruction({ schema: { type: 'object' }, strict: false });
    expect(text).toContain('single JSON object only');
    expect(text).not.toContain('JSON Schema');
  });

  it('a schema that says more: its text follows', () => {
    const schema = { type: 'object', properties: { meta: { type: 'object' } } };
    expect(jsonInstruction({ schema, description: 'A note' })).toContain(
      `conform to this JSON Schema (A note):\n${JSON.stringify(schema)}`,
    );
  });
});
