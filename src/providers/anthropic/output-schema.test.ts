import { describe, expect, it } from 'vitest';
import { anthropicOutputSchema } from './output-schema.ts';

describe('anthropicOutputSchema: a schema as Anthropic’s JSON outputs take it', () => {
  it('closes every object, nested ones included (the API requires additionalProperties: false)', () => {
    expect(
      anthropicOutputSchema({
        type: 'object',
        properties: {
          home: { type: 'object', properties: { city: { type: 'string' } } },
          tags: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        },
        required: ['home'],
      }),
    ).toEqual({
      type: 'object',
      properties: {
        home: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
        tags: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false },
        },
      },
      required: ['home'],
      additionalProperties: false,
    });
  });

  it('moves the constraints it refuses into the description, where the model still reads them', () => {
    expect(
      anthropicOutputSchema({
        type: 'object',
        properties: {
          age: { type: 'integer', minimum: 0, maximum: 130, description: 'Age in years.' },
          name: { type: 'string', maxLength: 40 },
          list: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
        },
      })?.properties,
    ).toEqual({
      age: { type: 'integer', description: 'Age in years. (minimum: 0, maximum: 130)' },
      name: { type: 'string', description: '(maxLength: 40)' },
      list: { type: 'array', items: { type: 'string' }, minItems: 1, description: '(maxItems: 3)' },
    });
  });

  it('keeps only what the API takes, as Anthropic’s SDK does (uniqueItems, min/maxProperties, format on a number or an unsupported one: described)', () => {
    expect(
      anthropicOutputSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
          meta: { type: 'object', properties: { a: { type: 'string' } }, minProperties: 1, maxProperties: 2 },
          count: { type: 'integer', format: 'int64' },
          ratio: { type: 'number', format: 'float' },
          secret: { type: 'string', format: 'password' },
          when: { type: ['string', 'null'], format: 'date-time' },
          kind: { type: 'string', enum: ['a', 'b'] },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, description: '(uniqueItems: true)' },
        meta: {
          type: 'object',
          properties: { a: { type: 'string' } },
          additionalProperties: false,
          description: '(minProperties: 1, maxProperties: 2)',
        },
        count: { type: 'integer', description: '(format: "int64")' },
        ratio: { type: 'number', description: '(format: "float")' },
        secret: { type: 'string', description: '(format: "password")' },
        when: { type: ['string', 'null'], format: 'date-time' },
        kind: { type: 'string', enum: ['a', 'b'] },
      },
      additionalProperties: false,
    });
  });

  it('oneOf becomes anyOf, which the API takes (beside an anyOf of its own, both hold through allOf)', () => {
    expect(
      anthropicOutputSchema({
        type: 'object',
        properties: {
          value: { oneOf: [{ type: 'string' }, { type: 'object', properties: { n: { type: 'integer' } } }] },
          both: { anyOf: [{ type: 'string' }, { type: 'null' }], oneOf: [{ const: 'x' }, { const: 'y' }] },
        },
      })?.properties,
    ).toEqual({
      value: {
        anyOf: [
          { type: 'string' },
          { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
        ],
      },
      both: {
        anyOf: [{ type: 'string' }, { type: 'null' }],
        allOf: [{ anyOf: [{ const: 'x' }, { const: 'y' }] }],
      },
    });
  });

  it('an object of free-form keys has no closed form: undefined (the caller sends no format)', () => {
    expect(anthropicOutputSchema({ type: 'object' })).toBeUndefined();
    expect(
      anthropicOutputSchema({
        type: 'object',
        properties: { scores: { type: 'object', additionalProperties: { type: 'number' } } },
      }),
    ).toBeUndefined();
  });
});
