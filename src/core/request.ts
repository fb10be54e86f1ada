/** The canonical request an adapter receives and the canonical response it returns. */

import type { FinishReason } from './finish-reason.ts';
import type { ModelId, RequestId } from './ids.ts';
import type { JsonObject } from './json.ts';
import type { MetadataMap } from './metadata.ts';
import type { ToolChoice, ToolSpec } from './tools.ts';
import type { Part, Transcript } from './transcript.ts';
import type { Usage } from './usage.ts';

/**
 * An effort level at which a model reasons, least to most. `xhigh` is OpenAI's level above `high`
 * (gpt-5.1-codex-max, gpt-5.2 and later) and Anthropic's on Opus 4.7; `max` Anthropic's most (above
 * `xhigh` on Opus 4.7; the most on Opus and Sonnet 4.6). A provider without a level gives its most
 * (docs/contract.md §3.5): `max` is `xhigh` at OpenAI, `high` at Gemini.
 */
export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/**
 * How hard a reasoning model should think: an effort level, a token budget, or both. Effort `none`
 * turns reasoning off (a Gemini client's `thinkingBudget: 0`, Anthropic's `thinking: {type:
 * 'disabled'}`, OpenAI's `reasoning_effort: 'none'`); the budget and `includeThoughts` mean nothing
 * with it. No effort and no budget is the provider's default effort (Anthropic's adaptive thinking:
 * `high`). `thinking: false` steers the answer's effort without asking for thinking (Anthropic's
 * `output_config.effort` alone). Each adapter sends it as its provider can (docs/contract.md §3.5).
 */
export interface ReasoningRequest {
  effort?: ReasoningEffort | 'none';
  /** Reasoning token budget (Anthropic `budget_tokens`, Gemini `thinkingBudget`). */
  budgetTokens?: number;
  /** Ask the provider to return readable reasoning where it can (Gemini `includeThoughts`). */
  includeThoughts?: boolean;
  /**
   * `false`: the effort steers the whole answer (text and tool calls) and no thinking is asked for —
   * Anthropic's `output_config.effort` without `thinking`. A provider whose effort always means
   * thinking effort (OpenAI, Gemini) gets the effort as it is; a model that does not reason, none
   * (a WARN). Absent or `true`: the model thinks.
   */
  thinking?: boolean;
}

/**
 * Whether the request asks for reasoning: a setting that neither turns it off (effort `none`) nor
 * only steers the answer's effort (`thinking: false`).
 */
export function wantsReasoning(reasoning: ReasoningRequest | undefined): boolean {
  return reasoning !== undefined && reasoning.effort !== 'none' && reasoning.thinking !== false;
}

/** Ask the adapter to use the provider's prompt cache for the stable prefix of the request. */
export interface PromptCacheRequest {
  /** Cache lifetime hint; adapters round to what their provider offers. */
  ttl?: '5m' | '1h';
  /**
   * The key requests sharing a prefix are cached under (OpenAI's `prompt_cache_key`: it routes them
   * to the same cache), such as a conversation's id. Without one, the OpenAI Responses adapter sends
   * the session's id when the caller gave a session, and none for a one-off call (a fresh key per
   * call would scatter a conversation's requests). A key over OpenAI's 64 characters is sent hashed.
   */
  key?: string;
}

/**
 * Whether a cache request is a key alone (an OpenAI client's `prompt_cache_key`): a routing hint
 * where the provider has one; a provider that cannot use it drops it without a WARN.
 */
export function isKeyOnly(cache: PromptCacheRequest): boolean {
  return cache.key !== undefined && cache.ttl === undefined;
}

/** A JSON Schema the response must conform to (structured output). */
export interface OutputSchema {
  name?: string;
  description?: string;
  schema: JsonObject;
  /** Ask the provider for strict schema adherence where it has it. Default true. */
  strict?: boolean;
  /**
   * What the reply's text is. `json` (the default): the JSON text of a value the schema accepts.
   * `enum`: the schema is a string enum ({@link isEnumSchema}) and the text is the chosen value as
   * it is, not quoted — Gemini's enum output (`responseMimeType: text/x.enum`), which the Gemini
   * adapter sends as such; another provider is sent the JSON schema and its answer, a JSON string,
   * is unquoted (`providers/common/output-text.ts`).
   */
  format?: 'json' | 'enum';
}

/** Whether `schema` is a string enum (`{type: 'string', enum: [...]}`, the type optional): what `format: 'enum'` takes. */
export function isEnumSchema(schema: JsonObject): boolean {
  const values = schema.enum;
  return (
    (schema.type === undefined || schema.type === 'string') &&
    Array.isArray(values) &&
    values.length > 0 &&
    values.every((value) => typeof value === 'string')
  );
}

/** The answer's length and detail (`CanonicalRequest.verbosity`). */
export type Verbosity = 'low' | 'medium' | 'high';

/** Everything one model call needs. */
export interface CanonicalRequest {
  /** ULID passed to `cancel()`; the adapter mints one when absent. */
  requestId?: RequestId;
  /** Canonical `provider:name` (a bare wire name is accepted too). */
  model: ModelId | string;
  transcript: Transcript;
  tools?: ToolSpec[];
  toolChoice?: ToolChoice;
  /** Allow several tool calls in one response (default: provider default). */
  parallelToolCalls?: boolean;
  /** Required: the adapter always sends an output limit. */
  maxOutputTokens: number;
  stopSequences?: string[];
  temperature?: number;
  topP?: number;
  topK?: number;
  outputSchema?: OutputSchema;
  /**
   * How long and detailed the answer's text should be (OpenAI GPT-5's `verbosity`): sent by the
   * OpenAI Responses adapters (`text.verbosity`) and by the Chat Completions hosts and models that
   * take it (`ChatQuirks.verbosityModels`: OpenAI's GPT-5 family); dropped with a WARN by other
   * Chat hosts; other providers have no such setting and ignore it.
   */
  verbosity?: Verbosity;
  reasoning?: ReasoningRequest;
  cache?: PromptCacheRequest;
  metadata?: MetadataMap;
  /**
   * Per-provider pass-through options, keyed by adapter name (e.g. `{ gemini: { safetySettings } }`);
   * every OpenAI Responses adapter also reads the protocol's key, `'openai-responses'`, whatever its
   * name (the gateway's Responses codec puts a client's built-in tools there).
   */
  providerOptions?: Record<string, JsonObject>;
}

/** The assistant's reply to one call. */
export interface CanonicalResponse {
  requestId: RequestId;
  /** The provider's own response id, when it sends one. */
  responseId?: string;
  /** Canonical `provider:name` of the model that actually served the call. */
  model: string;
  /** The adapter name. */
  provider: string;
  content: Part[];
  finishReason: FinishReason;
  /** The provider's finish value, verbatim (`end_turn`, `stop`, `STOP`, …). */
  rawFinishReason?: string;
  usage: Usage;
  latencyMs: number;
  metadata?: MetadataMap;
}
