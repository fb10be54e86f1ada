/** Agent tools: defined once with a schema (zod, Standard Schema or JSON Schema) and an `execute`. */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonObject } from '../core/json.ts';
import type { ToolSpec } from '../core/tools.ts';
import type { ToolCallPart } from '../core/transcript.ts';
import { tool, type ToolDefinition as SchemaToolDefinition } from '../schemas/structured.ts';
import type {
  AgentTool,
  AnyAgentTool,
  ApprovalRule,
  ToolContext,
  ToolReturn,
} from '../schemas/tool-output.ts';

export {
  type AgentTool,
  type AnyAgentTool,
  type ApprovalRule,
  type MarkedToolOutput,
  normalizeToolReturn,
  type ToolContext,
  type ToolReturn,
  toolOutput,
} from '../schemas/tool-output.ts';

/** The Standard Schema v1 interface (zod, valibot, arktype, …). */
export type { StandardSchemaV1 };

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
