/**
 * A structured-output schema as Anthropic's JSON outputs (`output_config.format`) take it: every
 * object closed (`additionalProperties: false`, which the API requires of each object), and every
 * keyword its constrained decoding does not support moved into the description, so the model
 * still reads it. An object with no properties (any keys at all) cannot be expressed: undefined,
 * and the caller sends no format.
 *
 * The keywords kept are the allow-list of Anthropic's own SDK (`transformJSONSchema`,
 * `@anthropic-ai/sdk/lib/transform-json-schema.js`; mirrored here, not imported: adapters carry
 * no vendor SDK): `$ref`, `$defs` / `definitions`, `type`, `enum` and `const` of primitive
 * values, `anyOf`, `allOf`, `oneOf` (as `anyOf`), `title`, `description`, an object's
 * `properties`, `required` and `additionalProperties: false`, an array's `items` and `minItems` of
 * 0 or 1, a string's `format` among the supported ones. Anything else — numeric bounds, string
 * lengths, `pattern`, `uniqueItems`, `minProperties`, `maxItems`, `format` on a number or an
 * unsupported one, `default`, … — goes into the description (`$schema`, which constrains nothing,
 * is dropped). Beyond the SDK: a `type` list (`['string', 'null']`) counts as each of its types, an
 * `enum` or `const` keeps its `type`, and an object of free-form keys is refused rather than closed.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';

/** The string formats the API supports (the SDK's `SUPPORTED_STRING_FORMATS`). */
const stringFormats = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'uri',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** Keywords whose value is a map of schemas, or a list of them. */
const schemaMaps = new Set(['properties', '$defs', 'definitions']);
const schemaLists = new Set(['anyOf', 'allOf']);

/** `schema` as Anthropic's JSON outputs take it (see above); undefined when it has no closed form. */
export function anthropicOutputSchema(schema: JsonObject): JsonObject | undefined {
  let expressible = true;
  const convertMember = (member: JsonValue): JsonValue => (isJsonObject(member) ? convert(member) : member);
  const convert = (node: JsonObject): JsonObject => {
    const result: JsonObject = {};
    const described: string[] = [];
    for (const [key, value] of Object.entries(node)) {
      // `$schema` names the dialect and constrains nothing; `oneOf` is added below, as `anyOf`.
      if (key === '$schema' || (key === 'oneOf' && Array.isArray(value))) continue;
      if (kept(key, value, node)) result[key] = value;
      else if (schemaMaps.has(key) && isJsonObject(value))
        result[key] = Object.fromEntries(
          Object.entries(value).map(([name, member]) => [name, convertMember(member)]),
        ) as JsonObject;
      else if (schemaLists.has(key) && Array.isArray(value)) result[key] = value.map(convertMember);
      else if (key === 'items' && isJsonObject(value)) result.items = convert(value);
      // Keys of any name but the properties' (a schema for the others) have no closed form.
      else if (key === 'additionalProperties' && isJsonObject(value)) expressible = false;
      else described.push(`${key}: ${JSON.stringify(value)}`);
    }
    if (Array.isArray(node.oneOf)) addOneOf(result, node.oneOf.map(convertMember));
    if (isObjectNode(result)) {
      // Keys of any name (no properties) have no closed form either.
      if (!isJsonObject(result.properties) || Object.keys(result.properties).length === 0)
        expressible = false;
      if (result.additionalProperties === undefined || result.additionalProperties === true)
        result.additionalProperties = false;
    }
    if (described.length > 0) {
      const note = `(${described.join(', ')})`;
      result.description = typeof result.description === 'string' ? `${result.description} ${note}` : note;
    }
    return result;
  };
  const converted = convert(schema);
  return expressible ? converted : undefined;
}

/** Whether `key: value` stays on `node` as written (keywords holding schemas aside). */
function kept(key: string, value: JsonValue, node: JsonObject): boolean {
  switch (key) {
    case '$ref':
    case 'type':
    case 'title':
    case 'description':
    case 'required':
      return true;
    case 'additionalProperties':
      return typeof value === 'boolean';
    case 'enum':
      return Array.isArray(value) && value.every(isPrimitive);
    case 'const':
      return isPrimitive(value);
    case 'minItems':
      return value === 0 || value === 1;
    case 'format':
      return hasType(node, 'string') && typeof value === 'string' && stringFormats.has(value);
    default:
      return false;
  }
}

/**
 * `oneOf` as `anyOf`, which the API takes (the members of a schema's union rarely overlap; where
 * they do, the model may match more than one). Beside an `anyOf` of its own, both must hold: the
 * `oneOf`'s members become an `anyOf` in `allOf`.
 */
function addOneOf(result: JsonObject, members: JsonValue[]): void {
  if (result.anyOf === undefined) result.anyOf = members;
  else result.allOf = [...(Array.isArray(result.allOf) ? result.allOf : []), { anyOf: members }];
}

/** An `enum` or `const` value the API takes: no object or array (the SDK describes those). */
function isPrimitive(value: JsonValue): boolean {
  return value === null || typeof value !== 'object';
}

function hasType(node: JsonObject, type: string): boolean {
  return node.type === type || (Array.isArray(node.type) && node.type.includes(type));
}

function isObjectNode(node: JsonObject): boolean {
  return hasType(node, 'object') || isJsonObject(node.properties);
}
