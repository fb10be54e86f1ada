/** Agent tools: defined once with a schema (zod, Standard Schema or JSON Schema) and an `execute`. */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonObject, JsonValue } from '../core/json.ts';
import type { ToolSpec } from '../core/tools.ts';
import type { Part, ToolCallPart, ToolOutput } from '../core/transcript.ts';
import { tool, type ToolDefinition as SchemaToolDefinition } from '../schemas/structured.ts';

/** The Standard Schema v1 interface (zod, valibot, arktype, …). */
export type { StandardSchemaV1 };

/** What a tool's `execute` receives besides its input. */
export interface ToolContext {
  /** The id of the call being answered. */
  callId: string;
  /** Aborted when the run is interrupted or the tool times out: stop work and return. */
  signal: AbortSignal;
  /** The turn (1-based) that asked for the call. */
  turn: number;
}

const outputMarker = Symbol.for('switchyard.tool-output');

/** A tool output built by {@link toolOutput}; carries an error flag. */
export type MarkedToolOutput = ToolOutput & { readonly [outputMarker]: { isError: boolean } };

/** What `execute` may return: a string (text), any JSON value (json), or a {@link toolOutput}. */
export type ToolReturn = string | JsonValue | MarkedToolOutput | undefined;

/** Builders for explicit tool outputs: parts (e.g. an image), JSON, text, or an error result. */
export const toolOutput = {
  text: (text: string): MarkedToolOutput => mark({ type: 'text', text }, false),
  json: (value: JsonValue): MarkedToolOutput => mark({ type: 'json', value }, false),
  parts: (parts: Part[]): MarkedToolOutput => mark({ type: 'parts', parts }, false),
  /** An error result the model sees (the tool ran but failed in a way the model should know). */
  error: (text: string): MarkedToolOutput => mark({ type: 'text', text }, true),
};

function mark(output: ToolOutput, isError: boolean): MarkedToolOutput {
  Object.defineProperty(output, outputMarker, { value: { isError }, enumerable: false });
  return output as MarkedToolOutput;
}

/** Converts whatever `execute` returned into a tool output and its error flag. */
export function normalizeToolReturn(value: ToolReturn): { output: ToolOutput; isError: boolean } {
  if (typeof value === 'object' && value !== null && outputMarker in value) {
    const { isError } = (value as MarkedToolOutput)[outputMarker];
    const output = { ...value } as ToolOutput;
    return { output, isError };
  }
  if (typeof value === 'string') return { output: { type: 'text', text: value }, isError: false };
  if (value === undefined) return { output: { type: 'text', text: '' }, isError: false };
  return { output: { type: 'json', value }, isError: false };
}

/** Whether a call needs the user's approval before it runs. */
export type ApprovalRule<Input> = boolean | ((input: Input) => boolean | Promise<boolean>);

/** A tool the agent can run. Build one with `tool({ …, execute })` (or its alias {@link defineTool}). */
export interface AgentTool<Input = JsonObject> {
  readonly name: string;
  readonly description?: string;
  /** The JSON Schema the model sees. */
  readonly inputSchema: JsonObject;
  /** Validates the model's input; the message lists each problem by path. */
  validate(input: unknown): Promise<{ ok: true; value: Input } | { ok: false; message: string }>;
  execute(input: Input, context: ToolContext): ToolReturn | Promise<ToolReturn>;
  readonly needsApproval?: ApprovalRule<Input>;
  /** Milliseconds before the call is abandoned with an error result (default: the agent's). */
  readonly timeoutMs?: number;
}

/**
 * Any tool, whatever its input type. `any` because a tool list mixes input types and `execute` /
 * `needsApproval` take their input contravariantly; the loop only ever passes validated input.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAgentTool = AgentTool<any>;

/** The schema a tool's input is described by. */
export type ToolInputSchema<Input> = StandardSchemaV1<unknown, Input> | JsonObject;

/** Options of {@link defineTool}: `tool()`'s options with `execute` required, typed by the input value. */
export interface ToolDefinition<Input> {
  name: string;
  description?: string;
  /** A zod schema, any Standard Schema, or a JSON Schema object (see `validateValue` in src/schemas). */
  input: ToolInputSchema<Input>;
  /** JSON Schema to send instead of the one derived from `input` (Standard Schemas that cannot describe themselves). */
  jsonSchema?: JsonObject;
  execute(input: Input, context: ToolContext): ToolReturn | Promise<ToolReturn>;
  needsApproval?: ApprovalRule<Input>;
  timeoutMs?: number;
}

/**
 * Alias of `tool()` (from `switchyard-ai`, the one way to define tools) for agent tools, typed by the
 * input value (`defineTool<JsonObject>({ … })`): the same object `tool()` returns.
 */
export function defineTool<Input>(definition: ToolDefinition<Input>): AgentTool<Input> {
  return tool(
    definition as SchemaToolDefinition & Required<Pick<SchemaToolDefinition, 'execute'>>,
  ) as AgentTool<Input>;
}

/** The tool specs a request carries. */
export function toolSpecs(tools: readonly AnyAgentTool[]): ToolSpec[] {
  return tools.map((tool) => {
    const spec: ToolSpec = { name: tool.name, inputSchema: tool.inputSchema };
    if (tool.description !== undefined) spec.description = tool.description;
    return spec;
  });
}

/** Whether `call` must wait for approval. */
export async function requiresApproval(tool: AnyAgentTool | undefined, call: ToolCallPart): Promise<boolean> {
  const rule = tool?.needsApproval;
  if (rule === undefined || rule === false) return false;
  if (rule === true) return true;
  return rule(call.input);
}
