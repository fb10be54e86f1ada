/**
 * A Gemini client's schemas as JSON Schema, the canonical form. `parameters` and `responseSchema`
 * are Gemini's OpenAPI 3.0 subset: upper-case types (`OBJECT`), `nullable`, `propertyOrdering`,
 * `example`, `format: 'enum'`; `parametersJsonSchema` and `responseJsonSchema` are JSON Schema
 * already and pass as written. Left in the OpenAPI dialect, `nullable: true` would mean nothing to
 * another provider (nor to Gemini's own JSON Schema mode, which the Gemini adapter uses for 2.5 and
 * later): the field would silently stop accepting null.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { jsonObject, RequestFieldError, shown } from '../fields.ts';

/**
 * The schema a client sent: the JSON Schema field as written, else the OpenAPI one converted.
 * `rootNull`: whether a `nullable` root stays nullable — a JSON answer's (the answer may be `null`),
 * not a tool's arguments (always an object) nor an enum answer's (`text/x.enum`: one of its values,
 * as text), whose caller WARNs ({@link nullableRoot}).
 */
export function clientSchema(
  jsonSchema: unknown,
  openApiSchema: unknown,
  paths: { jsonSchema: string; openApi: string },
  rootNull = false,
): JsonObject | undefined {
  if (jsonSchema !== undefined && jsonSchema !== null) return jsonObject(jsonSchema, paths.jsonSchema);
  if (openApiSchema === undefined || openApiSchema === null) return undefined;
  const schema = jsonObject(openApiSchema, paths.openApi);
  return fromOpenApi(schema, paths.openApi, !rootNull || isObjectRoot(schema));
}

/**
 * Whether an OpenAPI schema's root is an object. A nullable one is sent non-nullable: an answer's
 * root object is what every upstream's structured output takes (OpenAI's and Claude's want the
 * root an object, not `["object", "null"]`), and the caller WARNs ({@link nullableRoot}).
 */
export function isObjectRoot(schema: JsonObject): boolean {
  return (
    (typeof schema.type === 'string' && schema.type.toUpperCase() === 'OBJECT') ||
    (schema.type === undefined && isJsonObject(schema.properties))
  );
}

/** Whether the OpenAPI schema a client sent (not its JSON Schema one) has `nullable: true` at its root. */
export function nullableRoot(jsonSchema: unknown, openApiSchema: unknown): boolean {
  return (
    (jsonSchema === undefined || jsonSchema === null) &&
    isJsonObject(openApiSchema) &&
    openApiSchema.nullable === true
  );
}

/**
 * One OpenAPI schema as JSON Schema: types in lower case, `nullable` as a `null` type (or enum
 * value, or `anyOf` member), `example` as `examples`, `propertyOrdering` as the order of the properties, and `format: 'enum'`
 * dropped (output-order and enum hints JSON Schema has no word for); int64 counts (`minItems: '1'`)
 * as numbers. Walks only the keywords that
 * hold schemas (`properties`, `items`, `anyOf`): values such as `enum`, `default` or `example` are
 * copied as they are.
 */
function fromOpenApi(schema: JsonObject, path: string, root = false): JsonObject {
  const converted: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'propertyOrdering') continue;
    if (key === 'properties' && isJsonObject(value)) {
      converted.properties = propertiesOf(ordered(value, schema.propertyOrdering), path);
      continue;
    }
    if (key === 'type') converted.type = typeof value === 'string' ? value.toLowerCase() : value;
    else if (key === 'format' && value === 'enum') continue;
    else if (key === 'example') converted.examples = [value];
    else if (key === 'items' && isJsonObject(value)) converted.items = fromOpenApi(value, `${path}.items`);
    else if (key === 'anyOf' && Array.isArray(value))
      converted.anyOf = value.map((member, index) =>
        fromOpenApi(jsonObject(member, `${path}.anyOf.${index}`), `${path}.anyOf.${index}`),
      );
    else if (countKeywords.has(key)) converted[key] = count(value, `${path}.${key}`);
    else converted[key] = value;
  }
  if (schema.nullable === true && !root) allowNull(converted);
  return converted;
}

/**
 * The count keywords, int64 in Gemini's `Schema`: proto3 JSON writes an int64 as a decimal string
 * (the @google/genai types say `string`), which JSON Schema does not take for a count.
 */
const countKeywords = new Set([
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
]);

/** A count as a number: a number as written, a decimal string as its number; else a field error. */
function count(value: JsonValue | undefined, path: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  throw new RequestFieldError(
    path,
    `${path} must be a non-negative integer (a number or its decimal string)`,
  );
}

/**
 * `properties` in the order `propertyOrdering` gives (the names it lists first, in its order, then
 * the rest as written): JSON Schema keeps order in its keys, and Gemini's adapter writes it back
 * as `propertyOrdering` where it sends this subset.
 */
function ordered(properties: JsonObject, ordering: unknown): JsonObject {
  if (!Array.isArray(ordering)) return properties;
  const result: JsonObject = {};
  for (const name of ordering)
    if (typeof name === 'string' && Object.hasOwn(properties, name)) result[name] = properties[name]!;
  for (const [name, value] of Object.entries(properties))
    if (!Object.hasOwn(result, name)) result[name] = value;
  return result;
}

function propertiesOf(properties: JsonObject, path: string): JsonObject {
  const converted: JsonObject = {};
  for (const [name, inner] of Object.entries(properties)) {
    // The name as shown: a client's 200 KB key is not echoed whole into an error.
    const at = `${path}.properties.${shown(name)}`;
    converted[name] = fromOpenApi(jsonObject(inner, at), at);
  }
  return converted;
}

/** Makes a converted schema accept null, in whichever form it constrains its values. */
function allowNull(schema: JsonObject): void {
  if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  else if (Array.isArray(schema.anyOf)) schema.anyOf = [...schema.anyOf, { type: 'null' }];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null))
    schema.enum = [...(schema.enum as JsonValue[]), null];
}
