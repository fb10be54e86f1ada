/**
 * Undoes, on the reply, what {@link convertStrictSchema} did to optional properties: strict mode
 * makes each one required and nullable, so the model sends `null` where it would have left the
 * property out. A `null` for a property that was optional in the caller's ORIGINAL schema, and
 * whose original schema does not accept `null`, is removed again — the caller's own validator
 * (zod `.optional()`) takes an absent property, not a `null`. This holds for the output schema
 * (the reply's text) and for each `strict` function tool (its calls' arguments).
 *
 * The JSON is rewritten whole, so when the request's output schema gained such a property the
 * OpenAI adapters hold a streamed reply's text and send the cleaned text at its end as ONE delta,
 * and likewise the arguments of a call to a tool whose schema gained one ({@link holdStrictOutput});
 * other text and other calls stream unchanged.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { losesNumberDigits, parseJson, parseJsonKeepingDigits } from '../../core/json-text.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { callOf, type ProviderContext } from '../common/definition.ts';
import { pushAll } from '../../core/arrays.ts';

/** Original output schemas of calls whose strict conversion added nullable optional properties. */
const originals = new WeakMap<object, JsonObject>();
/** Per call, by tool name: original input schemas of strict tools whose conversion added such properties. */
const toolOriginals = new WeakMap<object, Map<string, JsonObject>>();

/**
 * The request builders' hook: records the call's ORIGINAL output schema when it is sent strict and
 * the conversion made an optional property nullable that was not.
 */
export function recordStrictOutput(context: ProviderContext, original: JsonObject): void {
  if (addsNullable(original, original, 0)) originals.set(callOf(context), original);
}

/**
 * The request builders' hook for a function tool sent `strict`: records its ORIGINAL input schema
 * when the conversion made an optional property nullable that was not.
 */
export function recordStrictTool(context: ProviderContext, name: string, original: JsonObject): void {
  if (!addsNullable(original, original, 0)) return;
  let tools = toolOriginals.get(callOf(context));
  if (tools === undefined) toolOriginals.set(callOf(context), (tools = new Map()));
  tools.set(name, original);
}

/**
 * The reply readers' hook: for a recorded output schema the builder holds text and cleans it at
 * each part's end; for recorded tools it holds the arguments of their calls and cleans them at
 * each call's end.
 */
export function holdStrictOutput(context: ProviderContext, builder: StreamBuilder): void {
  const original = originals.get(callOf(context));
  if (original !== undefined) builder.holdText((text) => dropAddedNulls(text, original));
  const tools = toolOriginals.get(callOf(context));
  if (tools === undefined) return;
  builder.holdToolArguments((name) => {
    const schema = tools.get(name);
    return schema === undefined ? undefined : (text) => dropAddedNulls(text, schema);
  });
}

/**
 * `text` with the added `null`s removed, re-serialised; `text` itself when it is not JSON or has
 * no such `null` (the model's own formatting kept).
 */
export function dropAddedNulls(text: string, original: JsonObject): string {
  try {
    // Long numbers kept as the model wrote them when the text is written again; where they cannot
    // be (a key written with an escape), a text with such a number is left as it is.
    const kept = parseJsonKeepingDigits(text);
    if (kept === undefined && losesNumberDigits(text)) return text;
    const value = (kept ?? parseJson(text)) as JsonValue;
    return clean(value, original, original, 0) ? JSON.stringify(value) : text;
  } catch {
    // Not JSON, or nested past the stack's depth (a hostile reply): the text as the model wrote it.
    return text;
  }
}

/** Most schema steps (a `$ref` or `anyOf` member) taken without going into the value: a cycle guard. */
const maxHops = 32;

/** Removes added `null`s from `value` in place, walking `schema`; true when one was removed. */
function clean(value: JsonValue, schema: JsonValue | undefined, root: JsonObject, hops: number): boolean {
  const node = resolve(schema, root);
  if (node === undefined || hops > maxHops) return false;
  let changed = false;
  if (Array.isArray(value)) {
    const prefix = Array.isArray(node.prefixItems)
      ? node.prefixItems
      : Array.isArray(node.items)
        ? node.items
        : [];
    value.forEach((entry, index) => {
      const item = index < prefix.length ? prefix[index] : Array.isArray(node.items) ? undefined : node.items;
      if (clean(entry, item, root, 0)) changed = true;
    });
  } else if (isJsonObject(value) && isJsonObject(node.properties)) {
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    for (const [name, child] of Object.entries(node.properties)) {
      if (!Object.hasOwn(value, name)) continue;
      if (value[name] === null && !required.has(name) && !allowsNull(child, root, 0)) {
        delete value[name];
        changed = true;
      } else if (value[name] !== undefined && clean(value[name], child, root, 0)) changed = true;
    }
  }
  if (Array.isArray(node.anyOf)) {
    const member = node.anyOf.find((entry) => fits(value, resolve(entry, root)));
    if (member !== undefined && clean(value, member, root, hops + 1)) changed = true;
  }
  return changed;
}

/** Whether `value` is of the shape `node` describes (the `anyOf` member to walk). */
function fits(value: JsonValue, node: JsonObject | undefined): boolean {
  if (node === undefined) return false;
  if (Array.isArray(value)) return node.type === 'array' || 'items' in node || 'prefixItems' in node;
  if (!isJsonObject(value)) return false;
  const properties = isJsonObject(node.properties) ? node.properties : undefined;
  if (properties === undefined) return Array.isArray(node.anyOf);
  return Object.keys(value).every((key) => key in properties);
}

/** True when the ORIGINAL subschema accepts `null` (then a `null` is the model's own answer). */
function allowsNull(schema: JsonValue | undefined, root: JsonObject, hops: number): boolean {
  if (typeof schema === 'boolean') return schema;
  const node = resolve(schema, root);
  if (node === undefined || hops > maxHops) return true;
  if ('const' in node) return node.const === null;
  if (Array.isArray(node.enum)) return node.enum.includes(null);
  const { type } = node;
  if (typeof type === 'string') return type === 'null';
  if (Array.isArray(type)) return type.includes('null');
  if (Array.isArray(node.anyOf)) return node.anyOf.some((member) => allowsNull(member, root, hops + 1));
  return true;
}

/** The subschema `$ref` points to within the root (`#`, `#/$defs/…`), else `schema` itself. */
function resolve(schema: JsonValue | undefined, root: JsonObject): JsonObject | undefined {
  if (!isJsonObject(schema)) return undefined;
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#')) return schema;
  let node: JsonValue = root;
  for (const token of ref
    .slice(1)
    .split('/')
    .filter((entry) => entry !== '')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isJsonObject(node)) return undefined;
    node = node[key] as JsonValue;
  }
  return isJsonObject(node) ? node : undefined;
}

/** True when some object schema in `node` has an optional property whose schema does not accept `null`. */
function addsNullable(node: JsonValue | undefined, root: JsonObject, depth: number): boolean {
  if (!isJsonObject(node) || depth > 64) return false;
  if (isJsonObject(node.properties)) {
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    for (const [name, child] of Object.entries(node.properties))
      if (!required.has(name) && !allowsNull(child, root, 0)) return true;
  }
  const children: JsonValue[] = [];
  for (const keyword of ['properties', '$defs', 'definitions'])
    if (isJsonObject(node[keyword])) pushAll(children, Object.values(node[keyword]));
  for (const keyword of ['items', 'prefixItems', 'anyOf']) {
    const value = node[keyword];
    if (Array.isArray(value)) pushAll(children, value);
    else if (value !== undefined) children.push(value);
  }
  return children.some((child) => addsNullable(child, root, depth + 1));
}
