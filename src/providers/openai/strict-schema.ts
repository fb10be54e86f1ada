/** Makes an ordinary JSON Schema fit OpenAI strict mode (every object closed, every property required). */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';

/** Keywords strict mode rejects and that cannot be rewritten without changing what the schema accepts. */
const unsupportedKeywords = [
  'patternProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
  'allOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
];

/** Keywords whose value is a map of name → subschema. */
const schemaMapKeywords = ['properties', '$defs', 'definitions'];

/** The outcome: the strict-ready copy, or why the schema has to go without `strict`. */
export type StrictSchemaResult = { schema: JsonObject } | { reason: string };

/** Thrown inside the walk to abandon it; never leaves this module. */
class NotStrictable extends Error {}

function isObjectSchema(node: JsonObject): boolean {
  const type = node.type;
  return (
    type === 'object' || (Array.isArray(type) && type.includes('object')) || isJsonObject(node.properties)
  );
}

/**
 * A strict-ready deep copy of `schema`, for OpenAI strict mode (`response_format` json_schema and
 * `strict` function tools), which wants `additionalProperties: false` on every object and every
 * property in `required`. Each object schema is closed and lists all its properties as required;
 * a property that was optional is widened to accept `null` instead (`type: [t, 'null']`, or
 * `anyOf: [..., {type: 'null'}]`), so the model sends `null` where it would have left it out.
 * Returns a `reason` instead when a rewrite would change what the schema accepts: a root that is
 * not an object, an object open to extra keys (`additionalProperties` true or a schema, or no
 * `properties` at all), a boolean subschema, or a keyword strict mode rejects (`patternProperties`,
 * `allOf`, `oneOf`, `not`, `if`/`then`/`else`, …). Callers then send `strict: false`.
 */
export function convertStrictSchema(schema: JsonObject): StrictSchemaResult {
  if (!isObjectSchema(schema)) return { reason: 'the root schema is not an object' };
  const copy = structuredClone(schema);
  try {
    normalise(copy, '#');
  } catch (error) {
    if (error instanceof NotStrictable) return { reason: error.message };
    throw error;
  }
  return { schema: copy };
}

/** Normalises one subschema in place (it is already a private copy). */
function normalise(node: JsonValue | undefined, path: string): void {
  if (typeof node === 'boolean') throw new NotStrictable(`${path} is a boolean schema`);
  if (!isJsonObject(node)) return;
  for (const keyword of unsupportedKeywords) {
    if (keyword in node) throw new NotStrictable(`${path} uses ${keyword}`);
  }
  if (isObjectSchema(node)) closeObject(node, path);
  for (const keyword of schemaMapKeywords) {
    const map = node[keyword];
    if (!isJsonObject(map)) continue;
    for (const [name, child] of Object.entries(map)) normalise(child, `${path}/${keyword}/${name}`);
  }
  const items = node.items;
  if (Array.isArray(items)) items.forEach((child, index) => normalise(child, `${path}/items/${index}`));
  else if (items !== undefined) normalise(items, `${path}/items`);
  for (const keyword of ['prefixItems', 'anyOf']) {
    const list = node[keyword];
    if (Array.isArray(list)) list.forEach((child, index) => normalise(child, `${path}/${keyword}/${index}`));
  }
}

/** Closes an object schema: `additionalProperties: false`, every property required, optional ones nullable. */
function closeObject(node: JsonObject, path: string): void {
  const extra = node.additionalProperties;
  if (extra !== undefined && extra !== false) throw new NotStrictable(`${path} allows additional properties`);
  const properties = node.properties;
  if (properties === undefined && extra !== false)
    throw new NotStrictable(`${path} is a free-form object (no properties)`);
  const map = isJsonObject(properties) ? properties : {};
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  for (const [name, child] of Object.entries(map)) {
    if (!required.has(name)) map[name] = nullable(child, `${path}/properties/${name}`);
  }
  node.properties = map;
  node.required = Object.keys(map);
  node.additionalProperties = false;
}

/** A subschema that also accepts `null`. */
function nullable(child: JsonValue, path: string): JsonValue {
  if (!isJsonObject(child)) throw new NotStrictable(`${path} is a boolean schema`);
  const { type } = child;
  if ('const' in child || (type === undefined && !Array.isArray(child.anyOf))) {
    return { anyOf: [child, { type: 'null' }] };
  }
  if (type === undefined) {
    const anyOf = child.anyOf as JsonValue[];
    if (!anyOf.some((member) => isJsonObject(member) && member.type === 'null')) anyOf.push({ type: 'null' });
    return child;
  }
  const types = Array.isArray(type) ? type : [type];
  if (!types.includes('null')) child.type = [...types, 'null'];
  if (Array.isArray(child.enum) && !child.enum.includes(null)) child.enum = [...child.enum, null];
  return child;
}

/**
 * A function tool's `parameters` and `strict` flag: with `strict` requested — by the tool itself
 * (`ToolSpec.strict`), else by the adapter's option (`strict`) — the schema made strict when it can
 * be, else sent as is without `strict` and with a WARN naming the reason.
 */
export function strictToolParameters(
  tool: { name: string; inputSchema: JsonObject; strict?: boolean },
  strict: boolean,
  warn?: (message: string, fields: Record<string, unknown>) => void,
): { parameters: JsonObject; strict: boolean } {
  if (!(tool.strict ?? strict)) return { parameters: tool.inputSchema, strict: false };
  const converted = convertStrictSchema(tool.inputSchema);
  if ('schema' in converted) return { parameters: converted.schema, strict: true };
  warn?.('sent a tool without strict: its schema cannot be made strict', {
    tool: tool.name,
    reason: converted.reason,
  });
  return { parameters: tool.inputSchema, strict: false };
}
