import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../core/json.ts';
import { presets } from '../openai-compatible/presets.ts';
import { defaultQuirks, mergeQuirks, openaiQuirks } from './quirks.ts';
import { buildRequest, convertTools } from './request.ts';
import { convertStrictSchema } from '../openai/strict-schema.ts';
import { createTestContext, userRequest } from './test-support.ts';

function strictSchema(schema: JsonObject): JsonObject {
  const result = convertStrictSchema(schema);
  if (!('schema' in result)) throw new Error(`not strictable: ${result.reason}`);
  return result.schema;
}

function reasonOf(schema: JsonObject): string | undefined {
  const result = convertStrictSchema(schema);
  return 'reason' in result ? result.reason : undefined;
}

describe('convertStrictSchema', () => {
  it('closes every object and makes optional properties required but nullable', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'integer' },
        tags: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } } } },
        unit: { type: 'string', enum: ['c', 'f'] },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        ref: { $ref: '#/$defs/point' },
        nested: { type: ['object', 'null'], properties: { x: { type: 'number' } }, required: ['x'] },
      },
      required: ['name'],
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } } } },
    };
    const before = structuredClone(schema);
    expect(strictSchema(schema)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: ['integer', 'null'] },
        tags: {
          type: ['array', 'null'],
          items: {
            type: 'object',
            properties: { label: { type: ['string', 'null'] } },
            required: ['label'],
            additionalProperties: false,
          },
        },
        unit: { type: ['string', 'null'], enum: ['c', 'f', null] },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
        ref: { anyOf: [{ $ref: '#/$defs/point' }, { type: 'null' }] },
        nested: {
          type: ['object', 'null'],
          properties: { x: { type: 'number' } },
          required: ['x'],
          additionalProperties: false,
        },
      },
      required: ['name', 'age', 'tags', 'unit', 'either', 'ref', 'nested'],
      additionalProperties: false,
      $defs: {
        point: {
          type: 'object',
          properties: { x: { type: ['number', 'null'] } },
          required: ['x'],
          additionalProperties: false,
        },
      },
    });
    // A deep copy: the caller's schema is untouched.
    expect(schema).toEqual(before);
  });

  it('keeps an already strict schema as it is', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    expect(strictSchema(schema)).toEqual(schema);
  });

  it('refuses what it cannot normalise without changing what the schema accepts', () => {
    const object = (extra: JsonObject): JsonObject => ({
      type: 'object',
      properties: { a: { type: 'string' } },
      ...extra,
    });
    expect(reasonOf(object({ additionalProperties: true }))).toMatch(/additional properties/);
    expect(reasonOf(object({ additionalProperties: { type: 'string' } }))).toMatch(/additional properties/);
    expect(reasonOf(object({ patternProperties: { '^x': { type: 'string' } } }))).toMatch(
      /patternProperties/,
    );
    expect(reasonOf({ type: 'object' })).toMatch(/free-form/);
    expect(reasonOf({ type: 'array', items: { type: 'string' } })).toMatch(/root/);
    expect(reasonOf(object({ properties: { a: { oneOf: [{ type: 'string' }] } } }))).toMatch(/oneOf/);
    expect(reasonOf(object({ properties: { a: true } }))).toMatch(/boolean/);
  });
});

describe('strict structured output and tools', () => {
  const ordinary: JsonObject = { type: 'object', properties: { city: { type: 'string' } } };

  it('sends an ordinary output schema strict-ready to OpenAI', () => {
    const context = createTestContext();
    const { body } = buildRequest(
      userRequest('Hi', { outputSchema: { name: 'weather', schema: ordinary } }),
      context,
      { quirks: openaiQuirks, strictTools: false },
    );
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'weather',
        schema: {
          type: 'object',
          properties: { city: { type: ['string', 'null'] } },
          required: ['city'],
          additionalProperties: false,
        },
        strict: true,
      },
    });
    expect(context.warnings).toEqual([]);
  });

  it('sends strict false with a WARN when the schema cannot be made strict', () => {
    const context = createTestContext();
    const schema: JsonObject = { ...ordinary, additionalProperties: true };
    const { body } = buildRequest(
      userRequest('Hi', { outputSchema: { name: 'open', schema, strict: true } }),
      context,
      { quirks: openaiQuirks, strictTools: false },
    );
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'open', schema, strict: false },
    });
    expect(context.warnings).toEqual([
      {
        message: 'sent the output schema without strict: it cannot be made strict',
        fields: { schema: 'open', reason: '# allows additional properties' },
      },
    ]);
  });

  it('leaves the schema alone when strict is turned off', () => {
    const { body } = buildRequest(
      userRequest('Hi', { outputSchema: { name: 'loose', schema: ordinary, strict: false } }),
      createTestContext(),
      { quirks: openaiQuirks, strictTools: false },
    );
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'loose', schema: ordinary, strict: false },
    });
  });

  it('normalises strict function tools, and sends an unnormalisable one without strict and a WARN', () => {
    const warnings: string[] = [];
    const tools = convertTools(
      [
        { name: 'weather', inputSchema: ordinary },
        { name: 'anything', inputSchema: { type: 'object' } },
      ],
      true,
      (message, fields) => warnings.push(`${message} (${String(fields.tool)})`),
    );
    expect(tools[0]?.function).toEqual({
      name: 'weather',
      parameters: {
        type: 'object',
        properties: { city: { type: ['string', 'null'] } },
        required: ['city'],
        additionalProperties: false,
      },
      strict: true,
    });
    expect(tools[1]?.function).toEqual({ name: 'anything', parameters: { type: 'object' } });
    expect(warnings).toEqual(['sent a tool without strict: its schema cannot be made strict (anything)']);
  });

  it('sends no strict and no normalised schema to a host without strict', () => {
    const groq = mergeQuirks(defaultQuirks, presets.groq.quirks);
    const { body } = buildRequest(
      userRequest('Hi', { outputSchema: { name: 'x', schema: ordinary } }),
      createTestContext({ provider: 'groq' }),
      { quirks: groq, strictTools: true },
    );
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'x', schema: ordinary },
    });
  });
});
