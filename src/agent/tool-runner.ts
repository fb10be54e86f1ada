/** Runs one turn's tool calls: validation, concurrency limit, timeouts, interrupts; results in call order. */
import type { ToolCallPart, ToolOutput, ToolResultPart } from '../core/transcript.ts';
import { parseTranscript } from '../core/transcript-schema.ts';
import type { TurnCancellation } from './cancellation.ts';
import { type AnyAgentTool, normalizeToolReturn } from './tool.ts';
import type { AgentLoopEvent } from './types.ts';

/** Metadata key set on results (and items) the interrupt cut short. */
export const interruptedKey = 'switchyard.interrupted';
/** Metadata key holding the interrupt's reason. */
export const interruptReasonKey = 'switchyard.interrupt_reason';

/** Where the runner reports tool starts and ends (events, observers, spans). */
export interface ToolHooks {
  start(call: ToolCallPart): void;
  end(call: ToolCallPart, result: ToolResultPart, durationMs: number): void;
}

/** What the runner needs from the loop. */
export interface ToolRunContext {
  tools: ReadonlyMap<string, AnyAgentTool>;
  turn: number;
  /** At most this many calls run at once. */
  concurrency: number;
  /** Default per-call timeout in ms (a tool's own `timeoutMs` wins). */
  timeoutMs: number;
  cancellation: TurnCancellation;
  hooks: ToolHooks;
}

/** Builds an error result answering `call`. */
export function errorResult(call: ToolCallPart, text: string, interrupted?: string): ToolResultPart {
  const result: ToolResultPart = {
    type: 'tool-result',
    callId: call.id,
    name: call.name,
    output: { type: 'text', text },
    isError: true,
  };
  if (interrupted !== undefined)
    result.metadata = { [interruptedKey]: true, [interruptReasonKey]: interrupted };
  return result;
}

/** The result given to a call that was interrupted before or while it ran. */
export function interruptedResult(call: ToolCallPart, reason: string, started: boolean): ToolResultPart {
  const when = started ? 'while it was running' : 'before it ran';
  return errorResult(call, `Tool call interrupted ${when} (${reason}); it did not complete.`, reason);
}

/**
 * Runs `calls` concurrently (at most `context.concurrency` at once) and returns one result per
 * call, in call order. Never throws: unknown tools, invalid input, thrown errors, timeouts and
 * interrupts all become error results the model can read.
 */
export async function runToolCalls(
  calls: ToolCallPart[],
  context: ToolRunContext,
): Promise<ToolResultPart[]> {
  const results: ToolResultPart[] = new Array(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      const call = calls[index]!;
      results[index] = await runOne(call, context);
    }
  };
  const workers: Promise<void>[] = [];
  const count = Math.max(1, Math.min(context.concurrency, calls.length));
  for (let index = 0; index < count; index++) workers.push(worker());
  await Promise.all(workers);
  return results;
}

async function runOne(call: ToolCallPart, context: ToolRunContext): Promise<ToolResultPart> {
  const { cancellation } = context;
  if (cancellation.isCancelled)
    return interruptedResult(call, cancellation.reason ?? 'user_cancelled', false);
  const started = performance.now();
  context.hooks.start(call);
  const result = await execute(call, context);
  context.hooks.end(call, result, performance.now() - started);
  return result;
}

/**
 * Validates and runs one call under its timeout and the run's cancellation — the input check too:
 * an async refinement that never settles must not hold the run past either.
 */
async function execute(call: ToolCallPart, context: ToolRunContext): Promise<ToolResultPart> {
  const tool = context.tools.get(call.name);
  if (tool === undefined) {
    const names = [...context.tools.keys()].join(', ') || 'none';
    return errorResult(call, `Unknown tool "${call.name}". Available tools: ${names}.`);
  }
  const { cancellation } = context;
  const timeoutMs = tool.timeoutMs ?? context.timeoutMs;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onInterrupt: (() => void) | undefined;
  const stopped = new Promise<'timeout' | 'interrupted'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`tool timed out after ${timeoutMs} ms`));
      resolve('timeout');
    }, timeoutMs);
    onInterrupt = () => {
      controller.abort(cancellation.signal.reason);
      resolve('interrupted');
    };
    if (cancellation.signal.aborted) onInterrupt();
    else cancellation.signal.addEventListener('abort', onInterrupt, { once: true });
  });
  /** `step` raced against the timeout and the interrupt (a step abandoned may still reject later). */
  const race = <Value>(step: () => Value | Promise<Value>) => {
    const running = Promise.resolve().then(step);
    running.catch(() => {});
    return Promise.race([running.then((value) => ({ value })), stopped]);
  };
  let ran = false;
  try {
    let checked: Awaited<ReturnType<typeof race<Awaited<ReturnType<AnyAgentTool['validate']>>>>>;
    try {
      checked = await race(() => tool.validate(call.input));
    } catch (error) {
      return errorResult(call, `Tool "${call.name}" could not check its input: ${describeError(error)}`);
    }
    if (checked === 'timeout')
      return errorResult(call, `Tool "${call.name}" timed out after ${timeoutMs} ms checking its input.`);
    if (checked === 'interrupted')
      return interruptedResult(call, cancellation.reason ?? 'user_cancelled', false);
    const validation = checked.value;
    if (!validation.ok) {
      return errorResult(
        call,
        `Invalid input for tool "${call.name}":\n${validation.message}\nCorrect the input and call the tool again.`,
      );
    }
    ran = true;
    const outcome = await race(() =>
      tool.execute(validation.value, { callId: call.id, signal: controller.signal, turn: context.turn }),
    );
    if (outcome === 'timeout') {
      return errorResult(call, `Tool "${call.name}" timed out after ${timeoutMs} ms and was abandoned.`);
    }
    if (outcome === 'interrupted')
      return interruptedResult(call, cancellation.reason ?? 'user_cancelled', true);
    const { output, isError } = normalizeToolReturn(outcome.value);
    return checkedResult(call, resultOf(call, output, isError));
  } catch (error) {
    if (cancellation.isCancelled)
      return interruptedResult(call, cancellation.reason ?? 'user_cancelled', ran);
    return errorResult(call, `Tool "${call.name}" failed: ${describeError(error)}`);
  } finally {
    clearTimeout(timer);
    if (onInterrupt !== undefined) cancellation.signal.removeEventListener('abort', onInterrupt);
  }
}

function resultOf(call: ToolCallPart, output: ToolOutput, isError: boolean): ToolResultPart {
  return { type: 'tool-result', callId: call.id, name: call.name, output, isError };
}

/**
 * The result when it is a valid transcript part, else an error result the model can read naming the
 * bad path: a tool that returns a BigInt, a function, a cyclic object, NaN or a Map must not put an
 * invalid transcript into the run (every later call would be refused).
 */
function checkedResult(call: ToolCallPart, result: ToolResultPart): ToolResultPart {
  const checked = parseTranscript([{ kind: 'tool', parts: [result] }]);
  if (checked.ok) return result;
  const problems = checked.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.replace(/^\[0\]\.parts\[0\]\.output\.?/, 'output.')}: ${issue.message}`);
  return errorResult(
    call,
    `Tool "${call.name}" returned a value that is not valid output (${problems.join('; ')}); it must return a string, a JSON value or a toolOutput.`,
  );
}

/** A thrown value as text; never throws itself (a thrown BigInt or cyclic object included). */
function describeError(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message || error.name);
    if (typeof error === 'string') return error;
    return JSON.stringify(error) ?? String(error);
  } catch {
    // A `message` getter that throws, a revoked proxy, a cycle: the value's tag is all that is safe.
    try {
      return Object.prototype.toString.call(error);
    } catch {
      return 'an error that cannot be described';
    }
  }
}

/** Adapts loop events to tool hooks. */
export function eventHooks(
  turn: number,
  emit: (event: AgentLoopEvent) => void,
  extra?: ToolHooks,
): ToolHooks {
  return {
    start(call) {
      emit({ type: 'tool-start', turn, callId: call.id, name: call.name, input: call.input });
      extra?.start(call);
    },
    end(call, result, durationMs) {
      emit({
        type: 'tool-end',
        turn,
        callId: call.id,
        name: call.name,
        result,
        isError: result.isError,
        durationMs,
      });
      extra?.end(call, result, durationMs);
    },
  };
}
