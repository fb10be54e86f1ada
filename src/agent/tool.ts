/** The agent's view of tools: the one {@link Tool} type, with `execute` (checked by `createAgent`). */
import type { ToolSpec } from '../core/tools.ts';
import type { ToolCallPart } from '../core/transcript.ts';
import type { ExecutableTool } from '../schemas/structured.ts';

export {
  type ApprovalRule,
  type MarkedToolOutput,
  normalizeToolReturn,
  type ToolContext,
  type ToolReturn,
  toolOutput,
} from '../schemas/tool-output.ts';

/**
 * A tool the agent runs, whatever its input type: a {@link ExecutableTool}. `any` because a tool list
 * mixes input types and `execute` / `needsApproval` take their input contravariantly; the loop only
 * ever passes validated input.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAgentTool = ExecutableTool<any>;

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
