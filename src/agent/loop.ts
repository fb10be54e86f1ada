/** The query loop: model turn → tools → next turn, with stops, recovery, budget, approvals and interrupts. */
import { approvalDigest } from './state.ts';
import type { AdapterSession } from '../core/adapter.ts';
import { isCancelledError } from '../core/errors/guards.ts';
import { modelFailureError } from '../core/errors/model-failure.ts';
import type { CanonicalRequest } from '../core/request.ts';
import type { Item, ToolCallPart, ToolResultPart } from '../core/transcript.ts';
import type { TurnCancellation } from './cancellation.ts';
import { compactIfNeeded, type StrategyContext } from './compaction.ts';
import {
  callWithFallback,
  defaultMaxOutputTokens,
  isOverloadedError,
  type ModelCallContext,
  resolveModel,
  type TurnCall,
} from './model-call.ts';
import { type AgentOptions, defaults, type TurnState } from './options.ts';
import {
  addUsage,
  answerOpenCalls,
  assistantText,
  costOf,
  isTruncated,
  toolCallsOf,
} from './transcript-tools.ts';
import type { Telemetry } from './telemetry.ts';
import { type AnyAgentTool, requiresApproval, toolSpecs } from './tool.ts';
import { errorResult, eventHooks, interruptedKey, interruptReasonKey, runToolCalls } from './tool-runner.ts';
import type { AgentEvent, AgentOutcome, AgentResult, AgentState, ModelClient, TurnRecord } from './types.ts';
import type { Usage } from '../core/usage.ts';

/** The mutable state of one run (serialized into {@link AgentState} when it pauses). */
export interface LoopState {
  transcript: Item[];
  turns: TurnRecord[];
  usage: Usage;
  cost: number;
  recoveries: number;
  /** True after compaction until the next response (the last usage no longer describes the transcript). */
  compacted: boolean;
}

/** Everything the loop is given. */
export interface LoopContext {
  options: AgentOptions;
  tools: ReadonlyMap<string, AnyAgentTool>;
  cancellation: TurnCancellation;
  session: AdapterSession;
  telemetry: Telemetry;
  emit(event: AgentEvent): void;
}

const truncatedText =
  'This tool call was cut off by the output token limit; its input is incomplete, so it was not executed. Call the tool again with the complete input.';

/** One run of the loop over `state`, from a fresh turn or from resumed tool results. */
export class AgentLoop {
  private readonly state: LoopState;
  private readonly context: LoopContext;
  private readonly maxTurns: number;

  constructor(state: LoopState, context: LoopContext) {
    this.state = state;
    this.context = context;
    this.maxTurns = context.options.maxTurns ?? defaults.maxTurns;
  }

  /** Runs turns until an outcome. `resumed` carries the results of a paused turn. Never throws. */
  async run(resumed?: ToolResultPart[]): Promise<AgentResult> {
    try {
      if (resumed !== undefined) {
        const ended = this.afterTools(resumed, this.state.turns.at(-1)?.finishReason === 'max-tokens');
        if (ended !== undefined) return ended;
      }
      for (;;) {
        const ended = await this.turn();
        if (ended !== undefined) return ended;
      }
    } catch (error) {
      if (this.context.cancellation.isCancelled) return this.cancelled('model');
      return this.end('error', { error });
    }
  }

  private view(turn: number): TurnState {
    const { transcript, turns, cost } = this.state;
    return { turn, transcript, turns, cost };
  }

  private overBudget(): boolean {
    const budget = this.context.options.budget;
    return budget !== undefined && this.state.cost > budget.maxCost;
  }

  private async turn(): Promise<AgentResult | undefined> {
    const { state, context } = this;
    const { options, cancellation } = context;
    if (cancellation.isCancelled) return this.cancelled('between-turns');
    if (this.overBudget()) return this.end('budget_exceeded');
    if (state.turns.length >= this.maxTurns) return this.end('max_turns');
    const number = state.turns.length + 1;
    const choice = typeof options.model === 'function' ? options.model(this.view(number)) : options.model;
    const primary = resolveModel(choice, options.client);
    if (options.compaction !== undefined) await this.compact(primary.client, primary.model);
    context.emit({ type: 'turn-start', turn: number, model: primary.model });
    const started = performance.now();
    const fallback =
      options.fallback === undefined ? undefined : resolveModel(options.fallback.model, options.client);
    const callContext: ModelCallContext = {
      turn: number,
      cancellation,
      session: context.session,
      emit: context.emit,
    };
    let call: TurnCall;
    try {
      call = await context.telemetry.withSpanContext(() =>
        callWithFallback(
          primary,
          fallback,
          (model, client) => this.buildRequest(model, client),
          callContext,
          options.fallback?.when ?? isOverloadedError,
        ),
      );
    } catch (error) {
      if (cancellation.isCancelled || isCancelledError(error)) return this.cancelled('model');
      throw error;
    }
    return this.afterResponse(number, call, started);
  }

  private buildRequest(model: string, client: ModelClient): CanonicalRequest {
    const { options, tools } = this.context;
    const request: CanonicalRequest = {
      ...options.request,
      model,
      transcript: [...this.state.transcript],
      maxOutputTokens:
        options.maxOutputTokens ?? defaultMaxOutputTokens(client, model, defaults.maxOutputTokens),
    };
    if (tools.size > 0) request.tools = toolSpecs([...tools.values()]);
    return request;
  }

  private record(number: number, call: TurnCall, started: number): TurnRecord {
    const { state, context } = this;
    const { response } = call;
    // The call was made (and billed): its usage counts even when its cost cannot (below).
    state.usage = addUsage(state.usage, response.usage);
    const cost = costOf(
      response.usage,
      call.model,
      context.options.cost,
      context.options.budget !== undefined,
    );
    const record: TurnRecord = {
      turn: number,
      model: response.model || call.model,
      finishReason: response.finishReason,
      usage: response.usage,
      cost,
      durationMs: performance.now() - started,
    };
    if (call.fallbackFrom !== undefined) record.fallbackFrom = call.fallbackFrom;
    if (response.finishReason === 'max-tokens') record.maxTokensRecovery = state.recoveries + 1;
    state.turns.push(record);
    state.cost += cost;
    state.compacted = false;
    context.emit({ type: 'turn-end', ...record });
    return record;
  }

  private async afterResponse(
    number: number,
    call: TurnCall,
    started: number,
  ): Promise<AgentResult | undefined> {
    const { state, context } = this;
    const { response } = call;
    this.record(number, call, started);
    const item: Item = {
      kind: 'assistant',
      parts: response.content,
      metadata: { 'switchyard.model': call.model },
    };
    if (call.fallbackFrom !== undefined) item.metadata!['switchyard.fallback_from'] = call.fallbackFrom;
    const calls = toolCallsOf(response.content);
    if (item.parts.length > 0) state.transcript.push(item);
    if (response.finishReason === 'cancelled' || context.cancellation.isCancelled) {
      const reason = context.cancellation.reason ?? 'user_cancelled';
      item.metadata![interruptedKey] = true;
      item.metadata![interruptReasonKey] = reason;
      return this.cancelled('model');
    }
    // A model failure (Gemini `MALFORMED_FUNCTION_CALL`: the call succeeded, the reply is unusable)
    // is returned to the host as an error, as the seeds' loop does; what arrived stays in the transcript.
    if (response.finishReason === 'error') return this.end('error', { error: modelFailureError(response) });
    if (this.overBudget()) return this.end('budget_exceeded');
    const cut = response.finishReason === 'max-tokens';
    state.recoveries = cut ? state.recoveries + 1 : 0;
    const maxRecoveries = context.options.maxTokensRecoveries ?? defaults.maxTokensRecoveries;
    if (cut && state.recoveries > maxRecoveries) return this.end('max_tokens');
    if (calls.length === 0 && !cut) return this.end('completed', { stoppedBy: 'model' });
    if (calls.length === 0) return this.afterTools([], cut);
    const results = await this.runTools(number, calls, response.finishReason === 'max-tokens');
    if (!Array.isArray(results)) return results;
    return this.afterTools(results, cut);
  }

  /** Runs the calls that need no approval; pauses (returns the result) when some do. */
  private async runTools(
    number: number,
    calls: ToolCallPart[],
    cut: boolean,
  ): Promise<ToolResultPart[] | AgentResult> {
    const { context } = this;
    const truncated = calls.map((call, index) => isTruncated(call, cut && index === calls.length - 1));
    const limits = {
      signal: context.cancellation.signal,
      timeoutMs: context.options.toolTimeoutMs ?? defaults.toolTimeoutMs,
    };
    const approval = await Promise.all(
      calls.map(
        (call, index) => !truncated[index] && requiresApproval(context.tools.get(call.name), call, limits),
      ),
    );
    const runnable = calls.filter((_, index) => !truncated[index] && !approval[index]);
    const ran = await runToolCalls(runnable, this.toolContext(number));
    const results: Array<ToolResultPart | undefined> = [];
    let next = 0;
    calls.forEach((call, index) => {
      if (truncated[index]) results.push(errorResult(call, truncatedText));
      else if (approval[index]) results.push(undefined);
      else results.push(ran[next++]);
    });
    const pending = calls.filter((_, index) => approval[index]);
    if (pending.length === 0 || context.cancellation.isCancelled) {
      return results.map(
        (result, index) => result ?? errorResult(calls[index]!, 'Not run: the run was interrupted.'),
      );
    }
    return this.pause(number, results, pending);
  }

  /** The tool-runner context for turn `number`. */
  toolContext(number: number): Parameters<typeof runToolCalls>[1] {
    const { options, tools, cancellation, emit, telemetry } = this.context;
    return {
      tools,
      turn: number,
      concurrency: options.toolConcurrency ?? defaults.toolConcurrency,
      timeoutMs: options.toolTimeoutMs ?? defaults.toolTimeoutMs,
      cancellation,
      hooks: eventHooks(number, emit, telemetry.toolHooks(number)),
    };
  }

  private pause(
    number: number,
    results: Array<ToolResultPart | undefined>,
    pending: ToolCallPart[],
  ): AgentResult {
    const { state } = this;
    const approvals = pending.map((call) => ({
      callId: call.id as string,
      name: call.name,
      input: call.input,
      digest: approvalDigest(call.id, call.name, call.input),
    }));
    this.context.emit({ type: 'approval-required', turn: number, pending: approvals });
    const snapshot: AgentState = {
      version: 1,
      transcript: state.transcript,
      results: results.filter((result): result is ToolResultPart => result !== undefined),
      pending: approvals,
      turns: state.turns,
      usage: state.usage,
      cost: state.cost,
      maxTokensRecoveries: state.recoveries,
      toolIds: this.context.session.toolIds.toJSON(),
    };
    return this.end('awaiting_approval', { state: snapshot, pendingApprovals: approvals });
  }

  private afterTools(results: ToolResultPart[], cut: boolean): AgentResult | undefined {
    const { state, context } = this;
    if (results.length > 0) {
      const item: Item = { kind: 'tool', parts: results };
      const interrupted = results.find((result) => result.metadata?.[interruptedKey] === true);
      if (interrupted !== undefined) {
        item.metadata = {
          [interruptedKey]: true,
          [interruptReasonKey]: interrupted.metadata![interruptReasonKey]!,
        };
      }
      state.transcript.push(item);
    }
    if (context.cancellation.isCancelled) return this.cancelled('tool');
    if (cut) {
      const text = context.options.recoveryMessage ?? defaults.recoveryMessage;
      state.transcript.push({
        kind: 'user',
        parts: [{ type: 'text', text }],
        metadata: { 'switchyard.recovery': 'max-tokens' },
      });
      context.emit({ type: 'max-tokens-recovery', turn: state.turns.length, attempt: state.recoveries });
    }
    if (context.options.stopWhen?.(this.view(state.turns.length)) === true) {
      return this.end('completed', { stoppedBy: 'stop-when' });
    }
    return undefined;
  }

  private async compact(client: StrategyContext['client'], model: string): Promise<void> {
    const { state, context } = this;
    const compacted = await compactIfNeeded(state.transcript, {
      options: context.options.compaction!,
      client,
      model,
      clientFor: (other) => resolveModel(other, context.options.client).client,
      lastUsage: state.compacted ? undefined : state.turns.at(-1)?.usage,
      signal: context.cancellation.signal,
      session: context.session,
      emit: context.emit,
      charge: (usage, charged) => {
        state.usage = addUsage(state.usage, usage);
        state.cost += costOf(usage, charged, context.options.cost, context.options.budget !== undefined);
      },
    });
    if (compacted !== undefined) {
      state.transcript.splice(0, state.transcript.length, ...compacted);
      state.compacted = true;
    }
  }

  private cancelled(during: 'model' | 'tool' | 'between-turns'): AgentResult {
    const reason = this.context.cancellation.reason ?? 'user_cancelled';
    return this.end('cancelled', { interrupted: { reason, during } });
  }

  private end(outcome: AgentOutcome, extra: Partial<AgentResult> = {}): AgentResult {
    const { state, context } = this;
    if (outcome !== 'awaiting_approval') {
      const reason = outcome === 'cancelled' ? (context.cancellation.reason ?? 'user_cancelled') : undefined;
      answerOpenCalls(state.transcript, outcome, reason);
    }
    const result: AgentResult = {
      outcome,
      transcript: state.transcript,
      // Only a completed run has an answer: any other ending must not read like one (the transcript
      // keeps whatever the model said before it).
      text: outcome === 'completed' ? assistantText(state.transcript) : '',
      turns: state.turns,
      usage: state.usage,
      cost: state.cost,
      toolIds: context.session.toolIds.toJSON(),
      ...extra,
    };
    context.emit({ type: 'run-end', outcome });
    return result;
  }
}
