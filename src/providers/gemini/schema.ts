/**
 * JSON Schema → the OpenAPI 3.0 subset Gemini's `parameters` / `responseSchema` accept. What maps is
 * mapped; annotations the subset lacks are dropped; a validation keyword it cannot express fails
 * with an `InvalidRequestError` naming the keyword and where it sits.
 */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { pushAll } from '../../core/arrays.ts';

/** Keywords that constrain values in ways the Gemini subset cannot express: always an error. */
const unsupportedKeywords = new Set([
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'prefixItems',
  'multipleOf',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'uniqueItems',
  '$dynamicRef',
  '$recursiveRef',
]);

/** Keywords copied as they are, per Gemini type (everything else is dropped as an annotation). */
const keywordsByType: Record<string, readonly string[]> = {
  STRING: ['enum', 'format', 'pattern', 'minLength', 'maxLength'],
  NUMBER: ['enum', 'format', 'minimum', 'maximum'],
  INTEGER: ['enum', 'format', 'minimum', 'maximum'],
  BOOLEAN: [],
  ARRAY: ['minItems', 'maxItems'],
  OBJECT: ['required', 'minProperties', 'maxProperties', 'propertyOrdering'],
  NULL: [],
};
const commonKeywords = ['title', 'description', 'nullable', 'default', 'example'];

/** `format` values Gemini accepts, per type; other formats are annotations and are dropped. */
const formatsByType: Record<string, readonly string[]> = {
  STRING: ['date-time', 'enum'],
  NUMBER: ['float', 'double', 'enum'],
  INTEGER: ['int32', 'int64', 'enum'],
};

const jsonTypes: Record<string, string> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
  null: 'NULL',
};

/** Where a schema is used, for error messages (`tool weather parameters`, `output schema`). */
export interface SchemaSite {
  where: string;
}

/**
 * Models that take full JSON Schema (`parametersJsonSchema`, `responseJsonSchema`): Gemini 2.5 and
 * later, and the `-latest` aliases. Older models (1.5, 2.0) and unknown names get the converter.
 */
const jsonSchemaModels = /(?:^|\/)gemini-(?:2\.5|[3-9])|(?:^|\/)gemini-(?:pro|flash|flash-lite)-latest/;

/**
 * Whether schemas go out as JSON Schema as is: `true`/`false` force it; `'auto'` (the default)
 * decides by model, so the converter to the OpenAPI subset is only the fallback for older models.
 */
export function takesJsonSchema(setting: boolean | 'auto', model: string): boolean {
  return setting === 'auto' ? jsonSchemaModels.test(model) : setting;
}

/** A JSON Schema as Gemini's JSON Schema fields take it: as is, minus the root `$schema` dialect tag. */
export function jsonSchemaForGemini(schema: JsonObject): JsonObject {
  if (schema.$schema === undefined) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** Converts a JSON Schema to Gemini's OpenAPI subset; throws `InvalidRequestError` on what cannot be. */
export function convertSchema(schema: JsonObject, site: SchemaSite): JsonObject {
  return new SchemaConverter(schema, site).convert(schema, '$', []);
}

/** True when a tool's input schema declares no parameters at all (then `parameters` is omitted). */
export function hasNoParameters(schema: JsonObject): boolean {
  const properties = schema.properties;
  return (
    (schema.type === undefined || schema.type === 'object') &&
    (properties === undefined || (isJsonObject(properties) && Object.keys(properties).length === 0)) &&
    schema.anyOf === undefined &&
    schema.oneOf === undefined &&
    schema.allOf === undefined &&
    schema.$ref === undefined &&
    !isJsonObject(schema.additionalProperties)
  );
}

/** The values an `enum` or a `const` allows, or `undefined` when the schema has neither. */
function enumValues(schema: JsonObject): JsonValue[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  return schema.const === undefined ? undefined : [schema.const];
}

/** Whether a value is one of a Gemini type's (only scalar types hold enum values). */
function acceptsValue(type: string, value: JsonValue): boolean {
  if (type === 'STRING') return typeof value === 'string';
  if (type === 'INTEGER') return Number.isInteger(value);
  if (type === 'NUMBER') return typeof value === 'number';
  return false;
}

class SchemaConverter {
  private readonly root: JsonObject;
  private readonly site: SchemaSite;

  constructor(root: JsonObject, site: SchemaSite) {
    this.root = root;
    this.site = site;
  }

  fail(keyword: string, path: string, why: string): never {
    throw new InvalidRequestError({
      message: `gemini: ${this.site.where}: keyword \`${keyword}\` at ${path} ${why}; Gemini's schema subset cannot express it (pass useJsonSchema: true to send JSON Schema as is)`,
      providerCode: 'unsupported_schema',
      provider: 'gemini',
    });
  }

  convert(input: JsonObject, path: string, refs: string[]): JsonObject {
    const schema = this.resolve(input, path, refs);
    const activeRefs = typeof input.$ref === 'string' ? [...refs, input.$ref] : refs;
    for (const keyword of Object.keys(schema)) {
      if (unsupportedKeywords.has(keyword)) this.fail(keyword, path, 'constrains values');
    }
    if (isJsonObject(schema.additionalProperties)) {
      this.fail('additionalProperties', path, 'describes a map of arbitrary keys');
    }
    if (Array.isArray(schema.allOf)) return this.convertAllOf(schema, path, activeRefs);
    const union = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(union)) return this.convertUnion(schema, union, path, activeRefs);
    return this.convertTyped(schema, path, activeRefs);
  }

  private resolve(schema: JsonObject, path: string, refs: string[]): JsonObject {
    const ref = schema.$ref;
    if (ref === undefined) return schema;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) this.fail('$ref', path, 'is not a local reference');
    if (refs.includes(ref)) this.fail('$ref', path, `is recursive (${ref})`);
    let target: JsonValue | undefined = this.root;
    for (const segment of ref.slice(2).split('/')) {
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isJsonObject(target) ? (target as JsonObject)[key] : undefined;
    }
    if (!isJsonObject(target)) this.fail('$ref', path, `points nowhere (${ref})`);
    const { $ref: _ignored, ...siblings } = schema;
    return { ...(target as JsonObject), ...siblings };
  }

  private convertAllOf(schema: JsonObject, path: string, refs: string[]): JsonObject {
    const { allOf, ...rest } = schema;
    const members = (allOf as JsonValue[]).map((member, index) => {
      if (!isJsonObject(member)) this.fail('allOf', `${path}.allOf[${index}]`, 'is not a schema');
      return this.resolve(member as JsonObject, `${path}.allOf[${index}]`, refs);
    });
    if (members.length === 1) return this.convert({ ...rest, ...members[0] }, path, refs);
    const objects = members.every((member) => member.type === 'object' || isJsonObject(member.properties));
    if (!objects) this.fail('allOf', path, 'combines schemas that are not all objects');
    const properties: JsonObject = {};
    const required: JsonValue[] = [];
    for (const member of members) {
      Object.assign(properties, isJsonObject(member.properties) ? member.properties : {});
      if (Array.isArray(member.required)) pushAll(required, member.required);
    }
    const merged: JsonObject = { ...rest, type: 'object', properties };
    if (required.length > 0) merged.required = required;
    return this.convert(merged, path, refs);
  }

  private convertUnion(schema: JsonObject, union: JsonValue[], path: string, refs: string[]): JsonObject {
    const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = schema;
    const keyword = schema.anyOf === undefined ? 'oneOf' : 'anyOf';
    let nullable = false;
    const branches: JsonObject[] = [];
    union.forEach((member, index) => {
      if (!isJsonObject(member)) this.fail(keyword, `${path}.${keyword}[${index}]`, 'is not a schema');
      // A branch that admits only null (`type: null`, `const: null`, `enum: [null]`) makes the union nullable.
      const branch = this.convert(member as JsonObject, `${path}.${keyword}[${index}]`, refs);
      if (branch.type === 'NULL') nullable = true;
      else branches.push(branch);
    });
    const annotations = this.copy(rest, commonKeywords);
    if (nullable) annotations.nullable = true;
    if (branches.length === 1) return { ...branches[0], ...annotations };
    if (branches.length === 0) return { type: 'NULL', ...annotations };
    // oneOf becomes anyOf: Gemini has no exclusive union; the model is asked for one of the branches.
    return { anyOf: branches, ...annotations };
  }

  /**
   * One schema with a type (declared or read from its values). Several types become an `anyOf` of
   * one branch per type, the annotations once beside it; an enum's values go each to the branch of
   * its own type, and a type none of them has drops out (`enum: ["a", 1, null]` is a nullable
   * `anyOf` of a STRING enum ["a"] and a NUMBER enum ["1"]). A schema that admits only null
   * (`type: null`, `const: null`, `enum: [null]`) is Gemini's NULL type.
   */
  private convertTyped(schema: JsonObject, path: string, refs: string[]): JsonObject {
    const types = this.types(schema, path);
    const values = enumValues(schema);
    const present = values?.filter((value) => value !== null);
    const concrete = types.filter((type) => type !== 'NULL');
    // Only null admitted (an empty enum admits nothing: it keeps its type, and the upstream says so).
    if (concrete.length === 0 || (present?.length === 0 && values!.length > 0)) {
      return { type: 'NULL', ...this.copy(schema, commonKeywords) };
    }
    const nullable =
      types.includes('NULL') || (present !== undefined && present.length < (values?.length ?? 0));
    if (concrete.length === 1) {
      const converted = this.convertOne(schema, concrete[0] as string, path, refs, true);
      if (nullable) converted.nullable = true;
      return converted;
    }
    const branches =
      present === undefined
        ? concrete.map((type) => [type, schema] as const)
        : this.splitEnum(schema, concrete, present, path);
    const annotations = this.copy(schema, commonKeywords);
    if (nullable) annotations.nullable = true;
    // The first of JSON Schema's `examples`, as one typed schema keeps it (`convertOne`).
    if (annotations.example === undefined && Array.isArray(schema.examples) && schema.examples.length > 0)
      annotations.example = schema.examples[0] as JsonValue;
    if (branches.length === 1) {
      const [type, own] = branches[0] as readonly [string, JsonObject];
      return { ...this.convertOne(own, type, path, refs, false), ...annotations };
    }
    return {
      anyOf: branches.map(([type, own]) => this.convertOne(own, type, path, refs, false)),
      ...annotations,
    };
  }

  /** An enum over several types, split into one enum per type that has values (in the types' order). */
  private splitEnum(
    schema: JsonObject,
    types: string[],
    values: JsonValue[],
    path: string,
  ): (readonly [string, JsonObject])[] {
    const keyword = Array.isArray(schema.enum) ? 'enum' : 'const';
    if (values.some((value) => typeof value === 'boolean' || typeof value === 'object')) {
      this.fail(keyword, path, 'lists values that are not strings or numbers');
    }
    const byType = new Map<string, JsonValue[]>(types.map((type) => [type, []]));
    for (const value of values) {
      // A value no declared type accepts is one the schema itself rejects: it has no branch.
      const type = types.find((candidate) => acceptsValue(candidate, value));
      if (type !== undefined) byType.get(type)?.push(value);
    }
    const { const: _const, ...rest } = schema;
    return [...byType]
      .filter(([, own]) => own.length > 0)
      .map(([type, own]) => [type, { ...rest, enum: own }] as const);
  }

  /** One typed schema; `annotated` false leaves the annotations to the `anyOf` it is a branch of. */
  private convertOne(
    schema: JsonObject,
    type: string,
    path: string,
    refs: string[],
    annotated: boolean,
  ): JsonObject {
    const result: JsonObject = { type, ...(annotated ? this.copy(schema, commonKeywords) : {}) };
    Object.assign(result, this.copy(schema, keywordsByType[type] ?? []));
    if (
      annotated &&
      Array.isArray(schema.examples) &&
      schema.examples.length > 0 &&
      result.example === undefined
    ) {
      result.example = schema.examples[0] as JsonValue;
    }
    this.convertEnum(schema, type, result, path);
    if (typeof result.format === 'string' && !(formatsByType[type] ?? []).includes(result.format)) {
      delete result.format;
    }
    if (type === 'OBJECT') {
      result.properties = this.convertProperties(schema, path, refs);
      // JSON Schema orders properties by their keys; this subset by `propertyOrdering` (without it,
      // Gemini orders an object's fields alphabetically).
      const names = Object.keys(result.properties as JsonObject);
      if (result.propertyOrdering === undefined && names.length > 1) result.propertyOrdering = names;
    }
    if (type === 'ARRAY') {
      if (schema.items === undefined) this.fail('items', path, 'is missing (an array of any values)');
      if (!isJsonObject(schema.items)) this.fail('items', path, 'is a tuple (an array of schemas)');
      result.items = this.convert(schema.items as JsonObject, `${path}.items`, refs);
    }
    return result;
  }

  /**
   * Gemini rejects an OBJECT with no `properties` ("should be non-empty for OBJECT type"), and its
   * subset has no typeless "any value" schema to fall back to, so a free-form object fails here.
   * (A tool whose whole input is such an object sends no `parameters`: see `hasNoParameters`.)
   */
  private convertProperties(schema: JsonObject, path: string, refs: string[]): JsonObject {
    const entries = isJsonObject(schema.properties) ? Object.entries(schema.properties) : [];
    if (entries.length === 0) this.fail('properties', path, 'is missing or empty (an object of any keys)');
    const properties: JsonObject = {};
    for (const [name, property] of entries) {
      if (!isJsonObject(property)) this.fail('properties', `${path}.properties.${name}`, 'is not a schema');
      properties[name] = this.convert(property as JsonObject, `${path}.properties.${name}`, refs);
    }
    return properties;
  }

  private convertEnum(schema: JsonObject, type: string, result: JsonObject, path: string): void {
    const values = enumValues(schema);
    if (values === undefined) return;
    const keyword = Array.isArray(schema.enum) ? 'enum' : 'const';
    const present = values.filter((value) => value !== null);
    if (present.length < values.length) result.nullable = true;
    if (present.some((value) => typeof value === 'boolean' || typeof value === 'object')) {
      this.fail(keyword, path, 'lists values that are not strings or numbers');
    }
    if (type !== 'STRING' && type !== 'NUMBER' && type !== 'INTEGER') {
      this.fail(keyword, path, `is used on a ${type.toLowerCase()} schema`);
    }
    result.enum = present.map(String);
    // Gemini enumerates numbers as strings with `format: enum` (its documented INTEGER enum form).
    if (type !== 'STRING') result.format = 'enum';
  }

  private types(schema: JsonObject, path: string): string[] {
    const declared = schema.type;
    const names = Array.isArray(declared) ? declared : declared === undefined ? [] : [declared];
    const types = names.map((name) => {
      // Own keys only: the schema is the caller's (`"type": "constructor"` is an unknown type).
      const type = typeof name === 'string' && Object.hasOwn(jsonTypes, name) ? jsonTypes[name] : undefined;
      if (type === undefined) this.fail('type', path, `has an unknown type ${JSON.stringify(name)}`);
      return type;
    });
    if (types.length > 0) return types;
    if (isJsonObject(schema.properties) || schema.required !== undefined) return ['OBJECT'];
    if (schema.items !== undefined) return ['ARRAY'];
    const values = enumValues(schema) ?? [];
    if (values.length === 0) return this.fail('type', path, 'is missing (a schema that accepts any value)');
    // No type: the values' own types, in the order they first appear (`enum: ["a", 1, null]`).
    const inferred: string[] = [];
    for (const value of values) {
      const type = value === null ? 'NULL' : jsonTypes[typeof value];
      if (type === undefined) {
        this.fail(
          Array.isArray(schema.enum) ? 'enum' : 'const',
          path,
          'lists values that are not strings or numbers',
        );
      }
      if (!inferred.includes(type)) inferred.push(type);
    }
    return inferred;
  }

  private copy(schema: JsonObject, keywords: readonly string[]): JsonObject {
    const result: JsonObject = {};
    for (const keyword of keywords) {
      const value = schema[keyword];
      if (value !== undefined) result[keyword] = value;
    }
    return result;
  }
}
