/** Tool definitions from schemas, and the output-schema check that turns a reply's text into a validated `structured` part. */
import { AdapterError } from '../core/errors/adapter-error.ts';
import type { JsonValue } from '../core/json.ts';
import type { OutputSchema } from '../core/request.ts';
import type { ToolSpec } from '../core/tools.ts';
import type { Reply } from '../conversation/helpers.ts';
import {
  formatIssues,
  type InferSchema,
  type SchemaIssue,
  type SchemaLike,
  toJsonSchema,
  validateValue,
} from './schema.ts';

/** A tool described by a schema (zod, Standard Schema or JSON Schema). */
export interface ToolDefinition<Schema extends SchemaLike = SchemaLike> {
  name: string;
  description?: string;
  input: Schema;
}

/** A tool spec that can also validate the model's input against its schema. */
export interface Tool<Schema extends SchemaLike = SchemaLike> extends ToolSpec {
  readonly schema: Schema;
  /** Validates a call's input; throws a `TypeError` naming every problem. */
  parse(input: unknown): Promise<InferSchema<Schema>>;
}

/** Creates a tool from a schema: `tool({ name: 'weather', input: z.object({ city: z.string() }) })`. */
export function tool<Schema extends SchemaLike>(definition: ToolDefinition<Schema>): Tool<Schema> {
  const spec: Tool<Schema> = {
    name: definition.name,
    inputSchema: toJsonSchema(definition.input),
    schema: definition.input,
    async parse(input) {
      const result = await validateValue(definition.input, input);
      if (result.ok) return result.value as InferSchema<Schema>;
      throw new TypeError(`${definition.name}: invalid input: ${formatIssues(result.issues)}`);
    },
  };
  if (definition.description !== undefined) spec.description = definition.description;
  return spec;
}

/** The reply did not match the output schema; `text` keeps what the model said. */
export class StructuredOutputError extends AdapterError {
  override name = 'StructuredOutputError';
  readonly text: string;
  readonly issues: SchemaIssue[];
  constructor(options: { text: string; issues: SchemaIssue[]; provider: string; requestId: string }) {
    super({
      message: `${options.provider}: the reply does not match the output schema: ${formatIssues(options.issues)}`,
      providerCode: 'invalid_structured_output',
      provider: options.provider,
      requestId: options.requestId,
    });
    this.text = options.text;
    this.issues = options.issues;
  }
}

/** The canonical output schema of a schema. */
export function toOutputSchema(schema: SchemaLike, name = 'output'): OutputSchema {
  return { name, schema: toJsonSchema(schema) };
}

/**
 * Parses the reply's text as JSON (a surrounding ```json fence is tolerated), validates it and adds
 * a `structured` part holding the value; throws a {@link StructuredOutputError} keeping the raw text.
 */
export async function attachStructured(
  reply: Reply,
  schema: SchemaLike,
  jsonSchema: OutputSchema,
): Promise<Reply> {
  const text = reply.text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new StructuredOutputError({
      text: reply.text,
      issues: [{ path: '(root)', message: `not JSON: ${(error as Error).message}` }],
      provider: reply.provider,
      requestId: reply.requestId,
    });
  }
  const result = await validateValue(schema, parsed);
  if (!result.ok) {
    throw new StructuredOutputError({
      text: reply.text,
      issues: result.issues,
      provider: reply.provider,
      requestId: reply.requestId,
    });
  }
  const value = result.value as JsonValue;
  return {
    ...reply,
    content: [...reply.content, { type: 'structured', value, schema: jsonSchema.schema }],
    structured: value,
  };
}
