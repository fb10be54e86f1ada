/**
 * A small JSON Schema validator for plain-JSON-Schema output schemas: `type`, `properties`,
 * `required`, `additionalProperties: false`, `items`, `enum`, `const`, `anyOf`, `minimum`,
 * `maximum`, `minLength`, `maxLength`, `minItems`, `maxItems`. Other keywords are not checked.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import { pushAll } from '../core/arrays.ts';

/** One problem. */
export interface JsonSchemaIssue {
  path: string;
  message: string;
}

/** The problems of `value` against `schema` (empty when valid). */
export function validateJsonSchema(schema: JsonObject, value: JsonValue, path = ''): JsonSchemaIssue[] {
  const issues: JsonSchemaIssue[] = [];
  const at = path === '' ? '(root)' : path;
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value)) {
    issues.push({ path: at, message: `must be ${JSON.stringify(schema.const)}` });
  }
  if (
    Array.isArray(schema.enum) &&
    !schema.enum.some((entry) => JSON.stringify(entry) === JSON.stringify(value))
  ) {
    issues.push({ path: at, message: `must be one of ${JSON.stringify(schema.enum)}` });
  }
  if (Array.isArray(schema.anyOf)) {
    const options = schema.anyOf.filter((option): option is JsonObject => isJsonObject(option));
    if (!options.some((option) => validateJsonSchema(option, value, path).length === 0)) {
      issues.push({ path: at, message: 'matches none of anyOf' });
    }
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 0 && !types.some((type) => hasType(value, String(type)))) {
    issues.push({ path: at, message: `must be ${types.join(' or ')}` });
    return issues;
  }
  if (typeof value === 'number') checkNumber(schema, value, at, issues);
  if (typeof value === 'string') checkLength(schema, value.length, 'Length', at, issues);
  if (Array.isArray(value)) checkArray(schema, value, path, issues);
  else if (isJsonObject(value)) checkObject(schema, value, path, issues);
  return issues;
}

function hasType(value: JsonValue, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isJsonObject(value);
    default:
      return true;
  }
}

function checkNumber(schema: JsonObject, value: number, at: string, issues: JsonSchemaIssue[]): void {
  if (typeof schema.minimum === 'number' && value < schema.minimum)
    issues.push({ path: at, message: `must be ≥ ${schema.minimum}` });
  if (typeof schema.maximum === 'number' && value > schema.maximum)
    issues.push({ path: at, message: `must be ≤ ${schema.maximum}` });
}

function checkLength(
  schema: JsonObject,
  length: number,
  kind: 'Length' | 'Items',
  at: string,
  issues: JsonSchemaIssue[],
): void {
  const min = schema[`min${kind}`];
  const max = schema[`max${kind}`];
  if (typeof min === 'number' && length < min) issues.push({ path: at, message: `needs at least ${min}` });
  if (typeof max === 'number' && length > max) issues.push({ path: at, message: `allows at most ${max}` });
}

function checkArray(schema: JsonObject, value: JsonValue[], path: string, issues: JsonSchemaIssue[]): void {
  checkLength(schema, value.length, 'Items', path === '' ? '(root)' : path, issues);
  if (!isJsonObject(schema.items)) return;
  const items = schema.items;
  value.forEach((entry, index) =>
    pushAll(issues, validateJsonSchema(items, entry, join(path, String(index)))),
  );
}

function checkObject(schema: JsonObject, value: JsonObject, path: string, issues: JsonSchemaIssue[]): void {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  for (const key of Array.isArray(schema.required) ? schema.required : []) {
    if (typeof key === 'string' && !(key in value))
      issues.push({ path: join(path, key), message: 'is required' });
  }
  for (const [key, entry] of Object.entries(value)) {
    const property = properties[key];
    if (isJsonObject(property)) pushAll(issues, validateJsonSchema(property, entry, join(path, key)));
    else if (schema.additionalProperties === false)
      issues.push({ path: join(path, key), message: 'is not allowed' });
  }
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
