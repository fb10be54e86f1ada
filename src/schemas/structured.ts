/** Tool definitions from schemas, and the output-schema check that turns a reply's text into a validated `structured` part. */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { AdapterError } from '../core/errors/adapter-error.ts';
import { invalidInput } from '../core/input-check.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';
import type { OutputSchema } from '../core/request.ts';
import type { ToolSpec } from '../core/tools.ts';
import type { Reply } from '../core/reply.ts';
import {
  formatIssues,
  type InferSchema,
  type SchemaIssue,
  type SchemaLike,
  toJsonSchema,
  validateValue,
} from './schema.ts';
import { checkToolDefinition, checkToolJsonSchema } from './tool-check.ts';
import type { ApprovalRule, ToolContext, ToolReturn } from './tool-output.ts';
import { parseJson } from '../core/json-text.ts';

/** What a tool's input may be described by: zod, any Standard Schema (with `jsonSchema` when it cannot describe itself), or JSON Schema. */
export type ToolSchema = StandardSchemaV1 | JsonObject;

/**
 * Options of {@link tool}. With `execute` the tool also runs in the agent (`createAgent({ tools })`);
 * without it, it is a spec for `sy.complete`, `sy.stream` and conversations whose calls you answer.
 */
export interface ToolDefinition<Schema extends ToolSchema = ToolSchema> {
  name: string;
  description?: string;
  input: Schema;
  /** JSON Schema to send instead of the one derived from `input` (Standard Schemas that cannot describe themselves). */
  jsonSchema?: JsonObject;
  /** Runs a call (agent tools): its input is validated first. */
  execute?(input: InferSchema<Schema>, context: ToolContext): ToolReturn | Promise<ToolReturn>;
  /** Agent tools: whether a call waits for the user's approval. */
  needsApproval?: ApprovalRule<InferSchema<Schema>>;
  /** Agent tools: milliseconds before a call is abandoned with an error result (default: the agent's). */
  timeoutMs?: number;
}

/**
 * The one tool type: a request's tool spec (`name`, `description`, `inputSchema`) that validates the
 * model's input against its schema, and — when defined with `execute` — an agent tool too. Its
 * `execute` can be called by hand without a context (a fresh signal, `callId` `manual`, turn 0 fill
 * what is missing), and what it returns goes into `conversation.addToolResults` as it is.
 */
export interface Tool<Schema extends ToolSchema = ToolSchema> extends ToolSpec {
  readonly schema: Schema;
  /** Validates a call's input; throws a `TypeError` naming every problem. */
  parse(input: unknown): Promise<InferSchema<Schema>>;
  /** Validates a call's input; the message lists each problem by path. */
  validate(
    input: unknown,
  ): Promise<{ ok: true; value: InferSchema<Schema> } | { ok: false; message: string }>;
  /** Runs a call (tools defined with `execute`); `context` may be left out or partial. */
  execute?(input: InferSchema<Schema>, context?: Partial<ToolContext>): ToolReturn | Promise<ToolReturn>;
  /** Agent: whether a call waits for the user's approval. */
  readonly needsApproval?: ApprovalRule<InferSchema<Schema>>;
  /** Agent: milliseconds before a call is abandoned with an error result (default: the agent's). */
  readonly timeoutMs?: number;
}

/** A {@link Tool} defined with `execute` (what {@link tool} returns then): `execute` is present. */
export type ExecutableTool<Schema extends ToolSchema = ToolSchema> = Tool<Schema> &
  Required<Pick<Tool<Schema>, 'execute'>>;

/** The context of a call made by hand: what the caller gave, the rest filled in. */
function manualContext(context: Partial<ToolContext> | undefined): ToolContext {
  return {
    callId: context?.callId ?? 'manual',
    signal: context?.signal ?? new AbortController().signal,
    turn: context?.turn ?? 0,
  };
}

/**
 * Creates a tool from a schema — the one way to define tools, for requests and the agent alike:
 * `tool({ name: 'weather', input: z.object({ city: z.string() }) })` for requests, plus `execute`
 * (and `needsApproval`, `timeoutMs`) for the agent.
 */
export function tool<Schema extends ToolSchema>(
  definition: ToolDefinition<Schema> & Required<Pick<ToolDefinition<Schema>, 'execute'>>,
): ExecutableTool<Schema>;
export function tool<Schema extends ToolSchema>(definition: ToolDefinition<Schema>): Tool<Schema>;
export function tool(definition: ToolDefinition): Tool | ExecutableTool {
  checkToolDefinition(definition);
  const { input, name } = definition;
  const created: {
    -readonly [Key in keyof Tool]: Tool[Key];
  } = {
    name,
    inputSchema:
      definition.jsonSchema === undefined
        ? describeInput(input, name)
        : checkedJsonSchema(definition.jsonSchema, name),
    schema: input,
    async parse(value) {
      const result = await validateValue(input, value);
      if (result.ok) return result.value;
      throw new TypeError(`${name}: invalid input: ${formatIssues(result.issues)}`);
    },
    async validate(value) {
      const result = await validateValue(input, value);
      if (result.ok) return { ok: true, value: result.value };
      return { ok: false, message: formatIssues(result.issues, 'list') };
    },
  };
  if (definition.description !== undefined) created.description = definition.description;
  const execute = definition.execute;
  if (execute !== undefined)
    created.execute = (value, context?: Partial<ToolContext>) =>
      execute(value as never, manualContext(context));
  if (definition.needsApproval !== undefined) created.needsApproval = definition.needsApproval;
  if (definition.timeoutMs !== undefined) created.timeoutMs = definition.timeoutMs;
  return created;
}

function describeInput(input: ToolSchema, name: string): JsonObject {
  let schema: JsonObject;
  try {
    schema = toJsonSchema(input as SchemaLike);
  } catch (error) {
    throw invalidInput(
      `tool ${name}`,
      [{ path: 'input', message: `${(error as Error).message} (or pass \`jsonSchema\`)` }],
      'invalid_tool',
    );
  }
  checkToolJsonSchema(name, schema);
  return schema;
}

function checkedJsonSchema(schema: JsonObject, name: string): JsonObject {
  checkToolJsonSchema(name, schema);
  return schema;
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
    parsed = parseJson(text);
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
