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
