/** Public types of the agent loop: the model client it needs, its events, outcomes and results. */
import type { AdapterSession, CallOptions } from '../core/adapter.ts';
import type { StreamEvent } from '../core/events.ts';
import type { FinishReason } from '../core/finish-reason.ts';
import type { CanonicalRequest, CanonicalResponse } from '../core/request.ts';
import type { ToolCallPart, ToolResultPart, Transcript } from '../core/transcript.ts';
import type { Usage } from '../core/usage.ts';
import type { InterruptReason } from './cancellation.ts';

/** A stream of canonical events that also resolves the whole response (what `Adapter.stream` returns). */
export interface ModelStream extends AsyncIterable<StreamEvent> {
  result(): Promise<CanonicalResponse>;
}

/**
 * All the loop needs from a model: one streaming call over canonical types. Any `Adapter` is one;
 * so is the front door (`createSwitchyard()`), which routes by the model string.
 */
export interface ModelClient {
  stream(request: CanonicalRequest, options?: CallOptions): ModelStream;
  /** Ends a session's provider-side state (adapters and the front door have it); called when a run ends. */
  endSession?(session: AdapterSession): Promise<void>;
}

/** The model of one turn: a model id, optionally with the client that serves it. */
export type ModelChoice = string | { model: string; client?: ModelClient };

/** All outcomes (how a run ended), for exhaustive tests: the one list {@link AgentOutcome} derives from. */
export const agentOutcomes = [
  'completed',
  'max_turns',
  'max_tokens',
  'budget_exceeded',
  'cancelled',
  'awaiting_approval',
  'error',
] as const;

/** How a run ended. Closed set. */
export type AgentOutcome = (typeof agentOutcomes)[number];

/** What the loop recorded about one model call. */
export interface TurnRecord {
  /** 1-based over the whole conversation (continues across `resume`). */
  turn: number;
  /** The model that served the turn. */
  model: string;
  /** Set when the turn was served by the fallback model after this model was overloaded. */
  fallbackFrom?: string;
  finishReason: FinishReason;
  usage: Usage;
  /** Cost of the turn in `currency` (0 when unknown). */
  cost: number;
  durationMs: number;
  /** Set when this turn continued a response cut by the output limit (1–3). */
  maxTokensRecovery?: number;
}

/** A tool call waiting for the user's decision. */
export interface PendingApproval {
  callId: string;
  name: string;
  input: ToolCallPart['input'];
  /**
   * `approvalDigest(callId, name, input)`: what the approval is bound to. Pass it back in the
   * decision (`{ approved: true, digest }`) to prove the call approved is the call shown.
   */
  digest?: string;
}

/**
 * The user's decision on one pending call; with `digest` (the pending call's), a decision for a
 * call whose name or input changed since it was shown is refused (`AgentStateError`).
 */
export type ApprovalDecision = boolean | { approved: boolean; reason?: string; digest?: string };

/**
 * Everything needed to continue a paused run, as plain JSON (see `stringifyAgentState`): the
 * transcript up to the assistant item whose calls wait, results already computed for the calls
 * that did not need approval, and the run's counters.
 */
export interface AgentState {
  version: 1;
  transcript: Transcript;
  /** Results of the paused turn's calls that already ran (in call order, gaps for pending ones). */
  results: ToolResultPart[];
  pending: PendingApproval[];
  turns: TurnRecord[];
  usage: Usage;
  cost: number;
  maxTokensRecoveries: number;
  /** The session's canonical ⇄ provider tool-id map (`ToolIdMap.toJSON()`), so provider ids survive the pause. */
  toolIds?: Array<[string, string, string]>;
}

/** How a run ended and everything it produced. */
export interface AgentResult {
  outcome: AgentOutcome;
  /** The whole transcript, consistent: every tool call answered (unless awaiting approval). */
  transcript: Transcript;
  /**
   * With outcome `completed`: the text of the last assistant item. With any other outcome: empty, so
   * that a run that did not complete never reads like an answer (the transcript keeps what was said).
   */
  text: string;
  turns: TurnRecord[];
  /** Usage summed over every turn of the run (and of the runs it resumed). */
  usage: Usage;
  /** Cost summed over every turn. */
  cost: number;
  /** With outcome `error`: the error. */
  error?: unknown;
  /** With outcome `completed`: `stop-when` when the predicate ended the run. */
  stoppedBy?: 'model' | 'stop-when';
  /** With outcome `cancelled`: why and where. */
  interrupted?: { reason: InterruptReason; during: 'model' | 'tool' | 'between-turns' };
  /** With outcome `awaiting_approval`: the serializable state to `resume` from. */
  state?: AgentState;
  /** With outcome `awaiting_approval`: the calls to decide on. */
  pendingApprovals?: PendingApproval[];
  /**
   * The run's canonical ⇄ provider tool-id map (`ToolIdMap.toJSON()`): `run(input, { continues:
   * result })` carries it into the next run, whatever provider that one talks to.
   */
  toolIds?: Array<[string, string, string]>;
}

/** The loop's own events (model events pass through unchanged between `turn-start` and `turn-end`). */
export type AgentLoopEvent =
  | { type: 'turn-start'; turn: number; model: string }
  | ({ type: 'turn-end' } & TurnRecord)
  | { type: 'retry'; turn: number; model: string; attempt: number; delayMs: number }
  | { type: 'fallback'; turn: number; from: string; to: string; error: unknown }
  | { type: 'max-tokens-recovery'; turn: number; attempt: number }
  | { type: 'tool-start'; turn: number; callId: string; name: string; input: ToolCallPart['input'] }
  | {
      type: 'tool-end';
      turn: number;
      callId: string;
      name: string;
      result: ToolResultPart;
      isError: boolean;
      durationMs: number;
    }
  | { type: 'approval-required'; turn: number; pending: PendingApproval[] }
  | { type: 'compaction'; strategy: string; tokensBefore: number; tokensAfter: number }
  | { type: 'run-end'; outcome: AgentOutcome };

/** Every event of a run: the model's stream events and the loop's. */
export type AgentEvent = StreamEvent | AgentLoopEvent;
