/** Options of `createAgent` and of each run. */
import type { Logger } from '../core/logger.ts';
import type { AdapterSession } from '../core/adapter.ts';
import type { CanonicalRequest } from '../core/request.ts';
import type { Transcript } from '../core/transcript.ts';
import type { Usage } from '../core/usage.ts';
import type { CancellationController } from './cancellation.ts';
import type { CompactionOptions } from './compaction.ts';
import type { AgentTracer } from './telemetry.ts';
import type { AnyAgentTool } from './tool.ts';
import type { AgentEvent, ModelChoice, ModelClient, TurnRecord } from './types.ts';

/** What `stopWhen` and a per-turn model function see. */
export interface TurnState {
  /** The turn about to run (model choice) or that just ran (`stopWhen`), 1-based. */
  turn: number;
  transcript: Transcript;
  turns: readonly TurnRecord[];
  cost: number;
}

/** Configuration of an agent. */
export interface AgentOptions {
  /** Agent name, reported in spans (`gen_ai.agent.name`). Default `agent`. */
  name?: string;
  /** The client serving every model, or a function picking one per model id (e.g. per provider). */
  client?: ModelClient | ((model: string) => ModelClient);
  /** The model of every turn, or a function choosing it per turn (model swap mid-run). */
  model: ModelChoice | ((state: TurnState) => ModelChoice);
  /** Prepended as a system item when the transcript has none. */
  instructions?: string;
  tools?: AnyAgentTool[];
  /** Model calls per run before it ends with `max_turns`. Default 20. */
  maxTurns?: number;
  /** Output limit of each call. Default 4096. */
  maxOutputTokens?: number;
  /** Ends the run (`completed`, `stoppedBy: 'stop-when'`) when true after a turn and its tools. */
  stopWhen?: (state: TurnState) => boolean;
  /** Ends the run with `budget_exceeded` once the summed cost is above `maxCost`. */
  budget?: { maxCost: number };
  /** Cost of one turn when the client does not fill `usage.cost` (the front door does). */
  cost?: (usage: Usage, model: string) => number;
  /** Model used for a turn whose model is overloaded (`when` overrides the overload test). */
  fallback?: { model: ModelChoice; when?: (error: unknown) => boolean };
  /** Continuations of a response cut by the output limit before `max_tokens`. Default 3. */
  maxTokensRecoveries?: number;
  /** The user message asking the model to continue after the output limit. */
  recoveryMessage?: string;
  /** Tool calls of one turn running at once. Default 8. */
  toolConcurrency?: number;
  /** Per-call tool timeout in ms (a tool's own wins). Default 120 000. */
  toolTimeoutMs?: number;
  /** Extra request fields for every call (temperature, reasoning, cache, providerOptions, …). */
  request?: Omit<Partial<CanonicalRequest>, 'model' | 'transcript' | 'tools' | 'maxOutputTokens'>;
  compaction?: CompactionOptions;
  /**
   * Called with every event of every run, as a copy: changing it changes neither the run nor what
   * its reader sees. May be async (never awaited); a throw or a rejection is logged once per
   * observer (WARN to `logger`) and never changes the run.
   */
  observers?: Array<(event: AgentEvent) => void>;
  /** Where the agent's warnings go (default: JSON lines on stderr). */
  logger?: Logger;
  /** OpenTelemetry tracer (`trace.getTracer(…)`): spans `invoke_agent` and `execute_tool`. */
  tracer?: AgentTracer;
}

/** Options of one run. */
export interface RunOptions {
  /** The host's controller; `AgentRun.interrupt()` uses a private one when absent. */
  cancellation?: CancellationController;
  /** Aborting it interrupts the run (reason `aborted`). */
  signal?: AbortSignal;
  /** The adapter session (tool-id map, provider state) to use, e.g. to continue an earlier run's. Default: a fresh one. */
  session?: AdapterSession;
  /**
   * A previous run's result this run continues — on any model or provider: its transcript comes
   * first, then `input`, and its tool-id map (`result.toolIds`) carries over, so calls a provider
   * issued keep their ids when the conversation comes back to it. JSON-safe: a stored result works.
   */
  continues?: ContinuedRun;
}

/** What {@link RunOptions.continues} reads from a previous {@link AgentResult}. */
export interface ContinuedRun {
  transcript: Transcript;
  /** The tool-id map of the run (`AgentResult.toolIds`). */
  toolIds?: Array<[string, string, string]>;
}

/** Defaults applied once. */
export const defaults = {
  maxTurns: 20,
  maxOutputTokens: 4096,
  maxTokensRecoveries: 3,
  toolConcurrency: 8,
  toolTimeoutMs: 120_000,
  recoveryMessage:
    'Output token limit hit. Resume directly — no apology, no recap — continuing exactly where you stopped.',
};
