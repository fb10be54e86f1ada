/**
 * A schema whose root must be an object (function arguments, OpenAI's output format): any other
 * schema wrapped as the `value` property of one, and a reply's `{ value }` read back.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';

/** Keywords holding the definitions a `$ref` points into; they stay at the parameters' root. */
const definitionKeywords = new Set(['$defs', 'definitions']);

/**
 * The WARN of a wrapped answer that held more than its `value` (other members, text after the
 * object): the answer is the value alone, the rest dropped — one per call.
 */
export const besideValueWarning =
  'dropped what the answer held beside its value: the output schema was sent wrapped as { value }';

/**
 * An object schema for any schema, and whether it wraps it as `{ value }`: what a provider that
 * takes only an object at a schema's root is sent (Gemini's answer function, whose arguments are an
 * object; OpenAI's `response_format`, whose root must be `type: "object"`).
 * An object schema goes as is; so does a root `$ref` to an object schema (zod-to-json-schema with
 * a name writes `{ $ref: '#/$defs/Name', $defs }`), resolved with its definitions kept at the root.
 * Any other schema is wrapped, its definitions (`$defs`, `definitions`) lifted to the wrapper's
 * root and its other local references moved under `#/properties/value`, so every `$ref` still
 * resolves, in JSON Schema as in the OpenAPI subset.
 */
export function wrappedSchema(schema: JsonObject): { schema: JsonObject; wrapped: boolean } {
  const object = isObjectSchema(schema) ? schema : referencedObject(schema);
  if (object !== undefined) return { schema: object, wrapped: false };
  const value: JsonObject = {};
  const wrapper: JsonObject = { type: 'object', properties: { value }, required: ['value'] };
  for (const [key, member] of Object.entries(schema)) {
    if (definitionKeywords.has(key)) wrapper[key] = member;
    else if (key !== '$schema') value[key] = member;
  }
  return { schema: rerooted(wrapper) as JsonObject, wrapped: true };
}

function isObjectSchema(schema: JsonObject): boolean {
  return schema.type === 'object' || (schema.type === undefined && isJsonObject(schema.properties));
}

/** A root `$ref` to an object schema, resolved: the target with the root's other keywords. */
function referencedObject(schema: JsonObject): JsonObject | undefined {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return undefined;
  let target: JsonValue | undefined = schema;
  for (const segment of ref.slice(2).split('/')) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    target = isJsonObject(target) ? target[key] : undefined;
  }
  if (!isJsonObject(target) || !isObjectSchema(target)) return undefined;
  const { $ref: _ref, ...siblings } = schema;
  return { ...target, ...siblings };
}

/** Keywords whose values are data, not schemas: a `$ref` inside them is left as is. */
const dataKeywords = new Set(['const', 'default', 'enum', 'examples']);
/** Keywords whose values map names (never keywords) to schemas. */
const schemaMaps = new Set(['properties', 'patternProperties', 'dependentSchemas', ...definitionKeywords]);

/**
 * The wrapper with the wrapped schema's local references that point outside the definitions
 * (`#`, `#/items`, …) moved under `#/properties/value`, where that schema now is.
 */
function rerooted(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(rerooted);
  if (!isJsonObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === '$ref' && typeof member === 'string') copy[key] = rerootedRef(member);
    else if (dataKeywords.has(key)) copy[key] = member;
    else if (schemaMaps.has(key) && isJsonObject(member))
      copy[key] = Object.fromEntries(
        Object.entries(member).map(([name, schema]) => [name, rerooted(schema)]),
      );
    else copy[key] = rerooted(member);
  }
  return copy;
}

function rerootedRef(ref: string): string {
  if (ref !== '#' && !ref.startsWith('#/')) return ref;
  const first = ref.slice(2).split('/')[0];
  if (first !== undefined && definitionKeywords.has(first)) return ref;
  return `#/properties/value${ref.slice(1)}`;
}
