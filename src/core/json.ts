/** JSON value types shared by the transcript, tool inputs and metadata. */

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object (the shape every tool input must have). */
export type JsonObject = { [key: string]: JsonValue };

/** True when `value` is a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
