/** JSON value types shared by the transcript, tool inputs and metadata. */

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object (the shape every tool input must have). */
export type JsonObject = { [key: string]: JsonValue };

/** The JSON type of `value` as a message names it: `null`, `an array`, `an object`, `a string`, `a number`, `a boolean`. */
export function jsonTypeName(value: unknown): string {
  return value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`;
}

/** True when `value` is a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Calls `visit` on every plain object inside `value` (arrays are walked, not visited) until it
 * returns true; true when it did. Iterative, so any depth is safe.
 */
function someObject(value: unknown, visit: (object: Record<string, unknown>) => boolean): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (const child of current) if (typeof child === 'object' && child !== null) stack.push(child);
      continue;
    }
    if (visit(current as Record<string, unknown>)) return true;
    for (const key in current) {
      const child = (current as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return false;
}

/** Whether `value` holds an own `__proto__` key (a plain property `JSON.parse` creates) at any depth. */
export function hasProtoKey(value: unknown): boolean {
  return someObject(value, (object) => Object.hasOwn(object, '__proto__'));
}

/**
 * Deletes every own `__proto__` key in `value`, in place (every object copy drops such a key or
 * turns it into a prototype swap). For values the library parsed itself (provider tool inputs).
 */
export function removeProtoKeys(value: unknown): void {
  someObject(value, (object) => {
    if (Object.hasOwn(object, '__proto__')) delete object['__proto__'];
    return false;
  });
}

/** The members of `object` whose names `names` holds, in the object's order (a count endpoint's share of a generation's body). */
export function pickFields(object: JsonObject, names: ReadonlySet<string>): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([name]) => names.has(name))) as JsonObject;
}
