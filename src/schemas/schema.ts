/**
 * Schemas in, validated values out: tools and output schemas accept zod, any Standard Schema
 * (`@standard-schema/spec`, with its JSON Schema converter) or plain JSON Schema, without casts.
 */
import { withSafePatterns } from './safe-pattern.ts';
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
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

/**
 * Validates `value` against `schema`. A Standard Schema uses its own validator; plain JSON Schema is
 * rebuilt once with zod's `fromJSONSchema` (the built-in subset checks schemas zod cannot rebuild).
 * Every problem is reported with its path, unknown keys one by one.
 */
export async function validateValue<Output>(
  schema: SchemaLike<Output> | StandardSchemaV1<unknown, Output>,
  value: unknown,
): Promise<ValidationResult<Output>> {
  const validator = isStandardSchema(schema) ? schema : jsonSchemaValidator(schema);
  if (validator === undefined) {
    const issues = validateJsonSchema(schema as JsonObject, value as JsonValue);
    return issues.length === 0 ? { ok: true, value: value as Output } : { ok: false, issues };
  }
  const result = await (validator as StandardSchemaV1<unknown, Output>)['~standard'].validate(value);
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, issues: result.issues.flatMap(toIssues) };
}

const compiled = new WeakMap<JsonObject, StandardSchemaV1 | undefined>();

/** The zod validator of a JSON Schema, built once per schema object; undefined when zod cannot build it. */
function jsonSchemaValidator(schema: JsonObject): StandardSchemaV1 | undefined {
  if (compiled.has(schema)) return compiled.get(schema);
  let validator: StandardSchemaV1 | undefined;
  try {
    // Patterns that could backtrack without bound are left out of local validation (safe-pattern.ts).
    validator = z.fromJSONSchema(withSafePatterns(schema) as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    validator = undefined;
  }
  compiled.set(schema, validator);
  return validator;
}

function toIssues(issue: StandardSchemaV1.Issue): SchemaIssue[] {
  const path = (issue.path ?? []).map((key) => String(typeof key === 'object' ? key.key : key)).join('.');
  const keys = (issue as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) return [{ path, message: issue.message }];
  return keys.map((key) => ({
    path: path === '' ? String(key) : `${path}.${String(key)}`,
    message: 'is not allowed',
  }));
}

/** Issues as text: `inline` joins `path: message` with `; `, `list` puts each on a `- ` line. */
export function formatIssues(issues: readonly SchemaIssue[], layout: 'inline' | 'list' = 'inline'): string {
  if (layout === 'inline')
    return issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ');
  return issues
    .map((issue) => (issue.path === '' ? `- ${issue.message}` : `- ${issue.path}: ${issue.message}`))
    .join('\n');
}

/** True for a plain JSON Schema object. */
export function isJsonSchema(value: unknown): value is JsonObject {
  return isJsonObject(value as JsonValue) && !isStandardSchema(value);
}
