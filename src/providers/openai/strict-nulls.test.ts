import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../core/json.ts';
import { dropAddedNulls } from './strict-nulls.ts';

/** Optional properties of every kind convertStrictSchema makes nullable, nested. */
const schema: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    nickname: { type: 'string' },
    middle: { type: ['string', 'null'] },
    mood: { enum: ['happy', 'sad'] },
    pets: { type: 'array', items: { $ref: '#/$defs/pet' } },
    address: {
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'string' } },
      required: ['city'],
    },
    contact: {
      anyOf: [
        {
          type: 'object',
          properties: { email: { type: 'string' }, label: { type: 'string' } },
          required: ['email'],
        },
        {
          type: 'object',
          properties: { phone: { type: 'string' }, label: { type: 'string' } },
          required: ['phone'],
        },
      ],
    },
    anything: {},
    owner: { type: 'string' },
  },
  required: ['name', 'owner'],
  $defs: {
    pet: {
      type: 'object',
      properties: { kind: { type: 'string' }, age: { type: 'integer' } },
      required: ['kind'],
    },
  },
};

describe('dropAddedNulls', () => {
  it('removes a null of an optional property whose original schema does not allow null, at any depth', () => {
    const text = JSON.stringify({
      name: 'Ada',
      nickname: null,
      middle: null,
      mood: null,
      pets: [
        { kind: 'cat', age: null },
        { kind: 'dog', age: 3 },
      ],
      address: { city: 'Paris', zip: null },
      contact: { phone: '1', label: null },
      anything: null,
      owner: null,
    });
    expect(JSON.parse(dropAddedNulls(text, schema))).toEqual({
      name: 'Ada',
      middle: null, // nullable in the original: the model's own answer
      pets: [{ kind: 'cat' }, { kind: 'dog', age: 3 }],
      address: { city: 'Paris' },
      contact: { phone: '1' },
      anything: null, // any value, null included
      owner: null, // required: not one strict mode added
    });
  });

  it('keeps the text as written when nothing is removed or it is not JSON', () => {
    const text = '{ "name": "Ada",  "owner": "x", "id": 12345678901234567890 }';
    expect(dropAddedNulls(text, schema)).toBe(text);
    expect(dropAddedNulls('I cannot help with that.', schema)).toBe('I cannot help with that.');
  });

  it('keeps long numbers as written when it rewrites the text', () => {
    const text =
      '{"name":"Ada","owner":"x","nickname":null,"pets":[{"kind":"cat","age":12345678901234567890}]}';
    expect(dropAddedNulls(text, schema)).toBe(
      '{"name":"Ada","owner":"x","pets":[{"kind":"cat","age":12345678901234567890}]}',
    );
  });

  it('leaves a text with a long number as written when the number cannot be kept (a key with an escape)', () => {
    const text = '{"name":"Ada","owner":"x","caf\\u00e9":"x","nickname":null,"id":12345678901234567891}';
    expect(dropAddedNulls(text, schema)).toBe(text);
  });

  it('leaves a reply nested past the stack as written, never throwing (a hostile upstream)', () => {
    const recursive = {
      type: 'object',
      properties: { c: { $ref: '#' }, x: { type: 'string' } },
      required: ['c'],
    };
    const text = '{"c":'.repeat(20_000) + '{"x":null}' + '}'.repeat(20_000);
    expect(dropAddedNulls(text, recursive)).toBe(text);
  });
});
