/**
 * Schemas in, validated values out: tools and output schemas accept zod, any Standard Schema
 * (`@standard-schema/spec`, with its JSON Schema converter) or plain JSON Schema, without casts.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import { validateJsonSchema } from './json-schema.ts';

/** A Standard Schema that can also describe itself as JSON Schema (zod 4, valibot, arktype, …). */
export type StandardSchemaWithJson<Output = unknown> = StandardSchemaV1<unknown, Output> &
  StandardJSONSchemaV1<unknown, Output>;

/** Anything accepted where a schema is expected. */
export type SchemaLike<Output = unknown> = StandardSchemaWithJson<Output> | JsonObject;

/** The value type a schema produces (`unknown` for plain JSON Schema). */
export type InferSchema<Schema> = Schema extends StandardSchemaV1<unknown, infer Output> ? Output : unknown;

/** One validation problem. */
export interface SchemaIssue {
  path: string;
  message: string;
}

/** The outcome of validating a value. */
export type ValidationResult<Output> = { ok: true; value: Output } | { ok: false; issues: SchemaIssue[] };

/** True for a Standard Schema. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === 'object' && value !== null && '~standard' in value;
}

/** The JSON Schema of `schema` (draft 2020-12, without the `$schema` marker providers reject). */
export function toJsonSchema(schema: SchemaLike): JsonObject {
  if (!isStandardSchema(schema)) return schema;
  const converter = (schema as Partial<StandardJSONSchemaV1>)['~standard']?.jsonSchema;
  if (converter === undefined) {
    throw new TypeError(
      `a ${schema['~standard'].vendor} schema without a JSON Schema converter cannot describe a tool or output; pass JSON Schema`,
    );
  }
  const { $schema: _marker, ...json } = converter.input({ target: 'draft-2020-12' });
  return json as JsonObject;
}

/** Validates `value` against `schema` (Standard Schema: its own validator; JSON Schema: the built-in subset). */
export async function validateValue<Output>(
  schema: SchemaLike<Output>,
  value: unknown,
): Promise<ValidationResult<Output>> {
  if (isStandardSchema(schema)) {
    const result = await (schema as StandardSchemaV1<unknown, Output>)['~standard'].validate(value);
    if (result.issues === undefined) return { ok: true, value: result.value };
    return {
      ok: false,
      issues: result.issues.map((issue) => ({
        path: (issue.path ?? []).map((key) => String(typeof key === 'object' ? key.key : key)).join('.'),
        message: issue.message,
      })),
    };
  }
  const issues = validateJsonSchema(schema, value as JsonValue);
  return issues.length === 0 ? { ok: true, value: value as Output } : { ok: false, issues };
}

/** True for a plain JSON Schema object. */
export function isJsonSchema(value: unknown): value is JsonObject {
  return isJsonObject(value as JsonValue) && !isStandardSchema(value);
}
