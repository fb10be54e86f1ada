/** The agent's view of tools: the one {@link Tool} type, with `execute` (checked by `createAgent`). */
import { plainToolSpec, type ToolSpec } from '../core/tools.ts';
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
  return tools.map(plainToolSpec);
}

/**
 * Whether `call` must wait for approval. A rule is asked about the input the tool would run with —
 * validated, its schema's transforms and defaults applied (the raw input `"  /etc/x"` would pass a
 * rule the trimmed `/etc/x` fails) — so input that does not validate needs no approval: it never
 * runs (the model gets the validation error); an input check that throws or does not answer in
 * time asks for approval. A rule that throws, or does not answer within the tool's timeout, rejects
 * (the run ends with `error`, as for any callback of the caller's); once the run is cancelled the
 * call waits (it is not run).
 */
export async function requiresApproval(
  tool: AnyAgentTool | undefined,
  call: ToolCallPart,
  limits: { signal: AbortSignal; timeoutMs: number },
): Promise<boolean> {
  const rule = tool?.needsApproval;
  if (tool === undefined || rule === undefined || rule === false) return false;
  if (rule === true) return true;
  const timeoutMs = tool.timeoutMs ?? limits.timeoutMs;
  const validation = await bounded(
    Promise.resolve().then(() => tool.validate(call.input)),
    limits.signal,
    timeoutMs,
    `the input check of tool "${tool.name}"`,
  ).catch(() => undefined);
  // An input check that throws or does not answer says nothing about the input: a person decides
  // (the run would otherwise check it again, and might run the call without asking the rule).
  if (validation === undefined) return true;
  if (!validation.ok) return false;
  const answer = await bounded(
    Promise.resolve().then(() => rule(validation.value)),
    limits.signal,
    timeoutMs,
    `needsApproval of tool "${tool.name}"`,
  ).catch((error: unknown) => {
    if (error === cancelled) return true;
    throw error;
  });
  return Boolean(answer);
}

/** The rejection of a step the run's cancellation cut short. */
const cancelled = Symbol('cancelled');

/** `work`, or a rejection once `timeoutMs` passes (naming `what`) or `signal` aborts ({@link cancelled}). */
function bounded<Value>(
  work: Promise<Value>,
  signal: AbortSignal,
  timeoutMs: number,
  what: string,
): Promise<Value> {
  work.catch(() => {});
  if (signal.aborted) return Promise.reject(cancelled);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
    onAbort = () => reject(cancelled);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  stopped.catch(() => {});
  return Promise.race([work, stopped]).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort!);
  });
}
