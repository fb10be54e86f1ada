/** The adapter interface every provider implements, and the per-session state it owns. */
import type { Capabilities } from './capabilities.ts';
import type { EventStream } from './event-stream.ts';
import type { StreamEvent } from './events.ts';
import { createSessionId, type SessionId } from './ids.ts';
import type { CanonicalRequest, CanonicalResponse } from './request.ts';
import { ToolIdMap } from './tool-id-map.ts';
import type { ToolSpec } from './tools.ts';
import type { Transcript } from './transcript.ts';

/** Names of the wire protocols Switchyard speaks. */
export type ProtocolId = 'anthropic-messages' | 'openai-chat' | 'openai-responses' | 'gemini' | (string & {});

/** What the retry loop reports before each new attempt. */
export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  /** The delay before the attempt, in milliseconds. */
  delayMs: number;
  /** The error that caused the retry. */
  error: unknown;
  requestId: string;
}

/**
 * A say over each retry (the router uses it): asked before the backoff (`stage: 'wait'`) and again
 * once the backoff is over, before the retry is sent (`stage: 'send'`). `false` ends the call at
 * once with the error that caused the retry, so a caller with somewhere else to go fails over
 * instead of waiting or retrying.
 */
export interface RetryGate {
  allow(info: RetryInfo & { stage: 'wait' | 'send' }): boolean | Promise<boolean>;
  /**
   * Subscribes `wake` to end a backoff early (the gate is then asked at once, `stage: 'send'`).
   * Returns the unsubscribe function.
   */
  onWake?(wake: () => void): () => void;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call; the stream then ends with finish reason `cancelled`. */
  signal?: AbortSignal;
  /** The session whose tool-id map and provider state this call uses (default: a fresh one). */
  session?: AdapterSession;
  /** Called before every retry. */
  onRetry?: (info: RetryInfo) => void;
  /** May veto retries (see {@link RetryGate}); without it every retry the policy allows goes out. */
  retryGate?: RetryGate;
  /** Extra headers for this call only. */
  headers?: Record<string, string>;
  /**
   * Front door only: whether this call may fall back to a candidate, given the candidate's names
   * (as configured, its canonical id, its aliases); one it refuses is skipped ('not allowed for
   * this caller'). The gateway passes its key's `models`. Without it every fallback may be tried.
   */
  allowFallback?: (names: readonly string[]) => boolean;
  /**
   * Front door only: a cap above the output limit of the model the caller named itself is lowered
   * to that limit (with a WARN and the routing record's note), as it is for a model the router
   * chose. The gateway sets it for a client of another protocol than the model's: its cap is sized
   * for its own vendor's models (Claude Code sends `max_tokens: 32000`, above gpt-4o's 16,384).
   * Without it the provider's refusal (`max_output_tokens_exceeded`) is the answer.
   */
  lowerOutputCap?: boolean;
}

/** The routing record's reason for a fallback {@link CallOptions.allowFallback} refused. */
export const notAllowedReason = 'not allowed for this caller';

/**
 * Per-session state: the canonical ⇄ provider tool-id map (docs/contract.md §4.1.1), shared by every
 * adapter the session talks to, and provider-side conversation state for stateful APIs, keyed by
 * adapter name. Sessions are single-owner: do not run two calls of one session concurrently.
 */
export interface AdapterSession {
  readonly id: SessionId;
  readonly toolIds: ToolIdMap;
  readonly state: Map<string, unknown>;
}

/** Creates an empty session; any adapter's `startSession()` returns the same shape. */
export function createSession(toolIds: ToolIdMap = new ToolIdMap()): AdapterSession {
  return { id: createSessionId(), toolIds, state: new Map() };
}

/** A model the provider lists. */
export interface ModelInfo {
  /** Canonical `provider:name`. */
  id: string;
  name: string;
  displayName?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
}

/** Input to a pre-flight token estimate. */
export interface TokenEstimateInput {
  transcript: Transcript;
  tools?: ToolSpec[];
  model?: string;
  /**
   * The caller only asks whether the estimate is above this (the context-window check): an
   * estimator may stop counting once past it and return what it has, a number above it.
   */
  stopAbove?: number;
  /**
   * The caller takes a count extrapolated past this many characters of text (an estimate of usage
   * the provider did not report): an estimator with a costly counter (a tokenizer) may count this
   * many exactly and the rest at the tokens per character it measured on them. A cheap, linear
   * estimator may ignore it. Ignored with `stopAbove`.
   */
  exactCharacters?: number;
}

/**
 * A provider adapter: translates canonical requests to one wire protocol and the responses back.
 * Adapters are plain objects, safe to share across concurrent calls.
 */
export interface Adapter {
  /** Provider name, the `provider` half of canonical model ids (`anthropic`, `openai`, `groq`, …). */
  readonly name: string;
  /**
   * The provider's own name when the adapter is named otherwise (`anthropic` for an Anthropic
   * adapter named `work-claude`): its models' catalog rows and prices are known by it. Absent: `name`.
   */
  readonly ownName?: string;
  /** The wire protocol. */
  readonly protocol: ProtocolId;
  /** What `model` supports as served by this adapter. Honest: false when the adapter does not expose it. */
  capabilities(model: string): Capabilities;
  /**
   * One non-streaming call. Resolves with the whole response or rejects with an `AdapterError`
   * subclass. Transient failures are retried (1 + maxRetries attempts). Fails before any HTTP call
   * when the request needs a capability the model lacks.
   */
  complete(request: CanonicalRequest, options?: CallOptions): Promise<CanonicalResponse>;
  /**
   * One streaming call. The returned stream yields events under the `StreamEvent` contract
   * (finish exactly once, last — also after errors and aborts) and `result()` resolves to the same
   * response the `finish` event carries. Retried only before the first event was delivered.
   */
  stream(request: CanonicalRequest, options?: CallOptions): EventStream<StreamEvent, CanonicalResponse>;
  /** Local estimate of the request's input tokens, no network; aims for ±10%. */
  estimateInputTokens(input: TokenEstimateInput): number;
  /**
   * The provider's own count of the request's input tokens (one HTTP call to its count endpoint,
   * which bills nothing: Anthropic's `/messages/count_tokens`, Gemini's `:countTokens`, OpenAI's
   * `/responses/input_tokens`, Bedrock's `CountTokens` for Claude, Vertex Claude's
   * `count-tokens:rawPredict`), built from the request the generation would send. Resolves with
   * `undefined` when the provider has no such endpoint for `request.model`; rejects with the
   * classified error as `complete()` does (one attempt, never retried). Optional: an adapter
   * without it is counted by `estimateInputTokens` alone.
   */
  countInputTokens?(request: CanonicalRequest, options?: CallOptions): Promise<number | undefined>;
  /**
   * Why this adapter, as configured, cannot serve `model` (a canonical id or wire name) at all — a
   * call would be refused before any request (Vertex in express mode serves Gemini only) — or
   * `undefined` when it may. The router skips such a candidate with this reason and falls over to
   * the next. Optional: absent, every model may be served.
   */
  unservedReason?(model: string): string | undefined;
  /** Aborts the in-flight call with this request id. Idempotent; true if it cancelled something. */
  cancel(requestId: string): boolean;
  /** Releases the connection pool; in-flight calls are cancelled. */
  close(): Promise<void>;
  /** The provider's model list (one HTTP call). */
  listModels(options?: { signal?: AbortSignal }): Promise<ModelInfo[]>;
  /** A fresh session (tool-id map and provider-side state). */
  startSession(): AdapterSession;
  /**
   * Ends `session` on this adapter: deletes the provider-side state its calls created (Gemini
   * `cachedContents` entries) and forgets it. Never throws: a failed deletion is logged as a WARN
   * (the entry then lapses at its TTL). `close()` ends every session the adapter still holds.
   */
  endSession(session: AdapterSession): Promise<void>;
}
