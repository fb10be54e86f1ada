import { describe, expect, it } from 'vitest';
import { isInvalidRequestError } from '../../core/errors/guards.ts';
import type { JsonObject } from '../../core/json.ts';
import { convertSchema, hasNoParameters } from './schema.ts';

const site = { where: 'tool lookup parameters' };

function failure(schema: JsonObject): unknown {
  try {
    convertSchema(schema, site);
  } catch (error) {
    return error;
  }
  throw new Error('expected the conversion to fail');
}

describe('JSON Schema → Gemini schema subset', () => {
  it.each(['constructor', 'toString', '__proto__'])(
    'a type named like a built-in property (%s) is an unknown type, refused',
    (type) => {
      const error = failure({ type: 'object', properties: { a: { type } } });
      expect(isInvalidRequestError(error)).toBe(true);
      expect(String((error as Error).message)).toMatch(/unknown type/);
    },
  );

  it('uppercases types and keeps what the subset has', () => {
    expect(
      convertSchema(
        {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          title: 'Query',
          properties: {
            text: { type: 'string', minLength: 1, maxLength: 50, pattern: '^[a-z]+$', format: 'email' },
            when: { type: 'string', format: 'date-time' },
            count: { type: 'integer', minimum: 1, maximum: 9, default: 3, examples: [4] },
            ratio: { type: 'number', format: 'double' },
            flags: { type: 'array', items: { type: 'boolean' }, minItems: 1 },
          },
          required: ['text'],
          additionalProperties: false,
        },
        site,
      ),
    ).toEqual({
      type: 'OBJECT',
      title: 'Query',
      properties: {
        text: { type: 'STRING', minLength: 1, maxLength: 50, pattern: '^[a-z]+$' },
        when: { type: 'STRING', format: 'date-time' },
        count: { type: 'INTEGER', minimum: 1, maximum: 9, default: 3, example: 4 },
        ratio: { type: 'NUMBER', format: 'double' },
        flags: { type: 'ARRAY', items: { type: 'BOOLEAN' }, minItems: 1 },
      },
      // The JSON Schema's key order, which this subset keeps only as `propertyOrdering`.
      propertyOrdering: ['text', 'when', 'count', 'ratio', 'flags'],
      required: ['text'],
    });
  });

  it('nullable unions: type arrays and anyOf with null become nullable', () => {
    expect(convertSchema({ type: ['string', 'null'] }, site)).toEqual({ type: 'STRING', nullable: true });
    expect(convertSchema({ anyOf: [{ type: 'number' }, { type: 'null' }], description: 'n' }, site)).toEqual({
      type: 'NUMBER',
      description: 'n',
      nullable: true,
    });
  });

  it('real unions become anyOf (oneOf too)', () => {
    expect(convertSchema({ oneOf: [{ type: 'string' }, { type: 'integer' }] }, site)).toEqual({
      anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }],
    });
    expect(convertSchema({ type: ['string', 'integer', 'null'] }, site)).toEqual({
      anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }],
      nullable: true,
    });
  });

  it('local $ref definitions are inlined', () => {
    expect(
      convertSchema(
        {
          type: 'object',
          properties: { home: { $ref: '#/$defs/address' }, work: { $ref: '#/definitions/address' } },
          $defs: { address: { type: 'object', properties: { city: { type: 'string' } } } },
          definitions: { address: { type: 'object', properties: { city: { type: 'string' } } } },
        },
        site,
      ),
    ).toEqual({
      type: 'OBJECT',
      properties: {
        home: { type: 'OBJECT', properties: { city: { type: 'STRING' } } },
        work: { type: 'OBJECT', properties: { city: { type: 'STRING' } } },
      },
      propertyOrdering: ['home', 'work'],
    });
  });

  it('allOf of objects merges properties and required', () => {
    expect(
      convertSchema(
        {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { type: 'number' } }, required: ['b'] },
          ],
        },
        site,
      ),
    ).toEqual({
      type: 'OBJECT',
      properties: { a: { type: 'STRING' }, b: { type: 'NUMBER' } },
      propertyOrdering: ['a', 'b'],
      required: ['a', 'b'],
    });
  });

  it('const and numeric enums become string enums (numbers with format enum)', () => {
    expect(convertSchema({ const: 'fixed' }, site)).toEqual({ type: 'STRING', enum: ['fixed'] });
    expect(convertSchema({ type: 'integer', enum: [1, 2, null] }, site)).toEqual({
      type: 'INTEGER',
      enum: ['1', '2'],
      format: 'enum',
      nullable: true,
    });
  });

  it('a schema that admits only null (const null, enum [null], type null) is the NULL type, not an empty enum', () => {
    expect(convertSchema({ const: null, description: 'cleared' }, site)).toEqual({
      type: 'NULL',
      description: 'cleared',
    });
    expect(convertSchema({ enum: [null] }, site)).toEqual({ type: 'NULL' });
    expect(convertSchema({ type: ['string', 'null'], const: null }, site)).toEqual({ type: 'NULL' });
    expect(convertSchema({ anyOf: [{ type: 'string' }, { const: null }] }, site)).toEqual({
      type: 'STRING',
      nullable: true,
    });
    expect(
      convertSchema({ type: 'object', properties: { unset: { const: null } }, required: ['unset'] }, site),
    ).toEqual({ type: 'OBJECT', properties: { unset: { type: 'NULL' } }, required: ['unset'] });
  });

  it('a mixed-type enum splits its values by type, once per branch, annotations once beside the anyOf', () => {
    const compact = {
      anyOf: [
        { type: 'STRING', enum: ['a'] },
        { type: 'NUMBER', enum: ['1'], format: 'enum' },
      ],
      description: 'level',
      nullable: true,
    };
    expect(convertSchema({ enum: ['a', 1, null], description: 'level' }, site)).toEqual(compact);
    expect(
      convertSchema({ type: ['string', 'number', 'null'], enum: ['a', 1, null], description: 'level' }, site),
    ).toEqual(compact);
    // A declared type none of the values has drops out; one branch left needs no anyOf.
    expect(convertSchema({ type: ['string', 'integer'], enum: ['a', 'b'] }, site)).toEqual({
      type: 'STRING',
      enum: ['a', 'b'],
    });
    expect(convertSchema({ type: ['integer', 'number'], enum: [1, 2.5] }, site)).toEqual({
      anyOf: [
        { type: 'INTEGER', enum: ['1'], format: 'enum' },
        { type: 'NUMBER', enum: ['2.5'], format: 'enum' },
      ],
    });
    const error = failure({ enum: ['a', true] }) as Error;
    expect(error.message).toContain('keyword `enum` at $ lists values that are not strings or numbers');
  });

  it("several types keep the schema's example once beside the anyOf; an empty enum is not the NULL type", () => {
    expect(convertSchema({ type: ['string', 'number'], examples: ['e'], description: 'd' }, site)).toEqual({
      anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }],
      description: 'd',
      example: 'e',
    });
    // An empty enum admits nothing (JSON Schema wants one value at least): not "null only".
    expect(convertSchema({ type: 'string', enum: [] }, site)).not.toMatchObject({ type: 'NULL' });
  });

  it.each([
    ['not', { type: 'object', properties: { a: { not: { type: 'string' } } } }, '$.properties.a'],
    ['exclusiveMinimum', { type: 'number', exclusiveMinimum: 0 }, '$'],
    ['uniqueItems', { type: 'array', items: { type: 'string' }, uniqueItems: true }, '$'],
    ['additionalProperties', { type: 'object', additionalProperties: { type: 'string' } }, '$'],
    ['items', { type: 'array', items: [{ type: 'string' }] }, '$'],
    ['$ref', { type: 'object', properties: { next: { $ref: '#' } } }, '$.properties.next'],
    ['type', { type: 'object', properties: { anything: {} } }, '$.properties.anything'],
    ['enum', { enum: [true, false] }, '$'],
    ['items', { type: 'object', properties: { tags: { type: 'array' } } }, '$.properties.tags'],
    ['properties', { type: 'object', properties: { meta: { type: 'object' } } }, '$.properties.meta'],
    [
      'properties',
      { type: 'object', properties: { meta: { type: 'object', properties: {} } } },
      '$.properties.meta',
    ],
    [
      'properties',
      { type: 'object', properties: { meta: { type: ['object', 'null'] } } },
      '$.properties.meta',
    ],
    ['properties', { type: 'object' }, '$'],
  ])('`%s` that cannot be expressed fails naming the keyword and where', (keyword, schema, path) => {
    const error = failure(schema as JsonObject);
    expect(isInvalidRequestError(error)).toBe(true);
    expect((error as Error).message).toContain(`keyword \`${keyword}\` at ${path}`);
    expect((error as Error).message).toContain('tool lookup parameters');
    expect((error as Error).message).toContain('useJsonSchema');
  });

  it('recursive references fail instead of looping', () => {
    const error = failure({
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
      $ref: '#/$defs/node',
    });
    expect((error as Error).message).toMatch(/`\$ref` at \$\.properties\.child is recursive/);
  });

  it('an array without items and an object without properties fail: Gemini rejects both', () => {
    const array = failure({ type: 'object', properties: { tags: { type: 'array' } } }) as Error;
    expect(array.message).toBe(
      'gemini: tool lookup parameters: keyword `items` at $.properties.tags is missing (an array of any values); ' +
        "Gemini's schema subset cannot express it (pass useJsonSchema: true to send JSON Schema as is)",
    );
    const object = failure({ type: 'object', properties: { meta: { type: 'object' } } }) as Error;
    expect(object.message).toContain('keyword `properties` at $.properties.meta is missing or empty');
    expect(object.message).toContain('useJsonSchema: true');
  });

  it('a tool without parameters sends no parameters', () => {
    expect(hasNoParameters({ type: 'object', properties: {} })).toBe(true);
    expect(hasNoParameters({ type: 'object' })).toBe(true);
    expect(hasNoParameters({ type: 'object', properties: { a: { type: 'string' } } })).toBe(false);
  });
});
