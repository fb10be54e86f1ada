/** Small transcript helpers of the loop: tool calls, truncation, open calls, usage and cost sums. */
import { invalidInput } from '../core/input-check.ts';
import type { Item, Part, ToolCallPart, ToolResultPart } from '../core/transcript.ts';
import { sumBuckets, type Usage } from '../core/usage.ts';
import { errorResult, interruptedKey, interruptReasonKey } from './tool-runner.ts';
import type { AgentOutcome } from './types.ts';
import { pushAll } from '../core/arrays.ts';

/** The tool calls among `parts`, in order. */
export function toolCallsOf(parts: readonly Part[]): ToolCallPart[] {
  const calls: ToolCallPart[] = [];
  for (const part of parts) if (part.type === 'tool-call') calls.push(part);
  return calls;
}

/**
 * True when a call's input is not what the model finished: marked `incomplete` by the stream
 * builder, carrying unparsed `switchyard.raw_input`, or the last part of a response cut by the
 * output limit (`cutLast`). Such a call is never executed.
 */
export function isTruncated(call: ToolCallPart, cutLast: boolean): boolean {
  if (call.incomplete === true) return true;
  if (call.metadata?.['switchyard.raw_input'] !== undefined) return true;
  return cutLast;
}

/** Sums two usages bucket by bucket, web searches included (cost is summed separately by the loop). */
export function addUsage(total: Usage, turn: Usage): Usage {
  return sumBuckets(total, turn);
}

/**
 * A turn's cost: the client's `usage.cost` when present, else the configured function, else 0 —
 * except under a budget (`budgeted`), where a turn that used tokens and has no price ends the run
 * with an error naming the model: counting it as free would let the budget be passed unseen.
 */
export function costOf(
  usage: Usage,
  model: string,
  compute: ((usage: Usage, model: string) => number) | undefined,
  budgeted = false,
): number {
  if (usage.cost !== undefined) return usage.cost.amount;
  if (
    compute === undefined &&
    budgeted &&
    usage.input + usage.cacheRead + usage.cacheWrite + usage.output > 0
  )
    throw invalidInput(
      'agent budget',
      [
        {
          path: 'budget.maxCost',
          message: `${model} has no known price, so its cost cannot count toward the budget: pass cost(), or use the front door (createSwitchyard()) as the client — it prices the models its price table knows; an adapter alone prices nothing`,
        },
      ],
      'invalid_options',
    );
  const cost = compute?.(usage, model) ?? 0;
  // A NaN or negative cost would silently disable the budget: the run ends with this error instead.
  if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0) {
    throw invalidInput(
      'agent cost()',
      [
        {
          path: 'cost',
          message: `returned ${String(cost)} for ${model}; it must return a finite number ≥ 0`,
        },
      ],
      'invalid_options',
    );
  }
  return cost;
}

/** The text parts of the last assistant item, joined. */
export function assistantText(transcript: readonly Item[]): string {
  for (let index = transcript.length - 1; index >= 0; index--) {
    const item = transcript[index]!;
    if (item.kind !== 'assistant') continue;
    let text = '';
    for (const part of item.parts) if (part.type === 'text') text += part.text;
    return text;
  }
  return '';
}

const reasons: Partial<Record<AgentOutcome, string>> = {
  cancelled: 'the run was interrupted',
  budget_exceeded: 'the cost budget was exceeded',
  max_tokens: 'the response was cut by the output token limit',
  max_turns: 'the turn limit was reached',
  error: 'the run ended with an error',
};

/**
 * Answers every tool call that has no result yet with an error result saying why it did not run,
 * placed in the tool item right after the call's assistant item, so the transcript stays valid
 * for every provider. Mutates `transcript`.
 */
export function answerOpenCalls(transcript: Item[], outcome: AgentOutcome, interruptReason?: string): void {
  const answered = new Set<string>();
  for (const item of transcript) {
    if (item.kind !== 'tool') continue;
    for (const part of item.parts) if (part.type === 'tool-result') answered.add(part.callId);
  }
  for (let index = transcript.length - 1; index >= 0; index--) {
    const item = transcript[index]!;
    if (item.kind !== 'assistant') continue;
    const open = toolCallsOf(item.parts).filter((call) => !answered.has(call.id));
    if (open.length === 0) continue;
    const why = reasons[outcome] ?? 'the run ended';
    const results: ToolResultPart[] = open.map((call) =>
      errorResult(call, `Tool call not run: ${why}.`, interruptReason),
    );
    const next = transcript[index + 1];
    if (next?.kind === 'tool') pushAll(next.parts, results);
    else {
      const toolItem: Item = { kind: 'tool', parts: results };
      if (interruptReason !== undefined) {
        toolItem.metadata = { [interruptedKey]: true, [interruptReasonKey]: interruptReason };
      }
      transcript.splice(index + 1, 0, toolItem);
    }
  }
}
