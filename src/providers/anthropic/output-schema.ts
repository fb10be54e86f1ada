/**
 * A structured-output schema as Anthropic's JSON outputs (`output_config.format`) take it: every
 * object closed (`additionalProperties: false`, which the API requires of each object), and the
 * constraints its constrained decoding does not support — numeric bounds, string lengths, array
 * sizes past `minItems` 0 or 1 — moved into the description, as Anthropic's own SDKs do, so the
 * model still reads them. An object with no properties (any keys at all) cannot be expressed:
 * undefined, and the caller sends no format.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';

/** Keywords the API refuses, kept for the model in the description instead. */
const describedKeywords = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'maxItems',
] as const;

/** Keywords whose value is a schema, or a list or map of schemas. */
const schemaKeywords = new Set(['items', 'not', 'additionalItems']);
const schemaLists = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
const schemaMaps = new Set(['properties', '$defs', 'definitions', 'patternProperties']);

export function anthropicOutputSchema(schema: JsonObject): JsonObject | undefined {
  let expressible = true;
  const convert = (node: JsonObject): JsonObject => {
    const result: JsonObject = {};
    const described: string[] = [];
    for (const [key, value] of Object.entries(node)) {
      if (
        (describedKeywords as readonly string[]).includes(key) ||
        (key === 'minItems' && Number(value) > 1)
      ) {
        described.push(`${key}: ${JSON.stringify(value)}`);
        continue;
      }
      if (schemaKeywords.has(key) && isJsonObject(value)) result[key] = convert(value);
      else if (schemaLists.has(key) && Array.isArray(value))
        result[key] = value.map((member) => (isJsonObject(member) ? convert(member) : member));
      else if (schemaMaps.has(key) && isJsonObject(value))
        result[key] = Object.fromEntries(
          Object.entries(value).map(([name, member]) => [
            name,
            isJsonObject(member) ? convert(member) : member,
          ]),
        ) as JsonObject;
      else result[key] = value as JsonValue;
    }
    if (isObjectNode(result)) {
      // Keys of any name (no properties, or a schema for the others) have no closed form.
      if (!isJsonObject(result.properties) || Object.keys(result.properties).length === 0)
        expressible = false;
      if (isJsonObject(result.additionalProperties)) expressible = false;
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

function isObjectNode(node: JsonObject): boolean {
  const { type } = node;
  return (
    type === 'object' || (Array.isArray(type) && type.includes('object')) || isJsonObject(node.properties)
  );
}
