/** Public types of the provider emulator: scripts, faults, recorded requests and the server handle. */
import type { ChatReasoningField } from '../../codecs/types.ts';

export type { ChatReasoningField };

/** The wire protocols the emulator speaks. */
export type EmulatorProtocolId =
  | 'anthropic-messages'
  | 'openai-chat'
  | 'openai-responses'
  | 'gemini'
  | 'bedrock-converse'
  | 'bedrock-invoke'
  | 'vertex-anthropic';

/**
 * Byte- and event-level faults injected while a response is written.
 *
 * "Events" are SSE frames for streamed responses (the terminal `data: [DONE]` counts as one); in a
 * streamed JSON array (Gemini without `alt=sse`) each item is one and the closing `]` another; a whole
 * JSON body counts as one event, or one per piece when `splitBytes` cuts it.
 */
export interface EmulatorFault {
  /** Destroy the socket after this many events were written (no clean end of the response). */
  disconnectAfterEvents?: number;
  /** Destroy the socket after this many body bytes were written, wherever that falls. */
  disconnectAfterBytes?: number;
  /** 1-based: replace the data of this event with invalid JSON (`{"type": garbage`). */
  malformedAtEvent?: number;
  /** Stop writing after this many events and keep the socket open until the client or `close()` ends it. */
  stallAfterEvents?: number;
  /** Milliseconds to wait between two events. */
  dripMs?: number;
  /**
   * Write the serialized body in separate pieces: at these byte offsets, at every byte, or every `size`
   * bytes. Offsets are counted over the whole body and may fall inside a UTF-8 character.
   */
  splitBytes?: number[] | 'every-byte' | { size: number };
  /** Milliseconds to wait before the status line and headers are sent. */
  delayHeadersMs?: number;
}

/** The faults that make sense for a whole (non-SSE) JSON body. */
export type EmulatorBodyFault = Pick<
  EmulatorFault,
  'splitBytes' | 'delayHeadersMs' | 'disconnectAfterEvents' | 'disconnectAfterBytes'
>;

/** Options every script accepts. */
export interface EmulatorScriptOptions {
  /** `false` skips the provider rules (auth headers, message ordering, thought signatures). Default `true`. */
  enforce?: boolean;
  /** `true` lets OpenAI-style requests through without `authorization: Bearer …`. */
  allowNoAuth?: boolean;
}

/** Serves a recorded fixture file (`.json`, `.chunks.txt` or `.sse`; see test/fixtures/NOTICE.md). */
export interface ReplayScript extends EmulatorScriptOptions {
  type: 'replay';
  /** Path to the file; relative paths resolve against the working directory. */
  file: string | URL;
  /** The protocol used for framing `.chunks.txt`; inferred from the request path (then the file path) when absent. */
  protocol?: EmulatorProtocolId;
  /** Overrides the status (default 200), e.g. for recorded error bodies. */
  status?: number;
  /** Extra or replacement response headers. */
  headers?: Record<string, string>;
  fault?: EmulatorFault;
}

/** Answers with any status, body and headers. */
export interface JsonScript extends EmulatorScriptOptions {
  type: 'json';
  /** Default 200. */
  status?: number;
  /** Serialized with `JSON.stringify` unless it is already a string, which is sent as is. */
  body: unknown;
  headers?: Record<string, string>;
  fault?: EmulatorBodyFault;
}

/** One raw SSE frame: `event: <event>\ndata: <data>\n\n`. */
export interface SseEvent {
  event?: string;
  /** Objects are serialized with `JSON.stringify`. */
  data: string | object;
}

/** Streams the given SSE frames as they are. */
export interface SseScript extends EmulatorScriptOptions {
  type: 'sse';
  events: SseEvent[];
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  fault?: EmulatorFault;
}

/** Visible assistant text. */
export interface ScriptedText {
  type: 'text';
  text: string;
}

/** Reasoning text; `signature` becomes Anthropic's `signature_delta`, Gemini's `thoughtSignature`, OpenAI's `encrypted_content`. */
export interface ScriptedReasoning {
  type: 'reasoning';
  text: string;
  signature?: string;
}

/** A function/tool call. */
export interface ScriptedToolCall {
  type: 'tool-call';
  /** Default: a realistic id for the protocol (`toolu_…`, `call_…`); Gemini calls carry no id. */
  id?: string;
  name: string;
  input: object;
  /** Gemini `thoughtSignature` on the `functionCall` part; Gemini 3 models get a generated one on the first call when absent. */
  signature?: string;
}

/**
 * A provider's own block, whole (an Anthropic server tool's `server_tool_use` or
 * `web_search_tool_result`): written where the protocol has it, left out elsewhere.
 */
export interface ScriptedCustom {
  type: 'custom';
  /** The block's type; `data.type` must be the same. */
  kind: string;
  data: Record<string, unknown>;
}

/** One piece of scripted assistant output. */
export type ScriptedContent = ScriptedText | ScriptedReasoning | ScriptedToolCall | ScriptedCustom;

/**
 * Token counts of a scripted response. `input` excludes cached tokens, `output` excludes reasoning; each
 * protocol folds them the way it reports them (e.g. OpenAI `prompt_tokens = input + cacheRead + cacheWrite`,
 * `completion_tokens = output + reasoning`).
 */
export interface ScriptedUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
  /**
   * The service tier the upstream says served the call, in its protocol's field (Chat and Responses
   * `service_tier`, Anthropic `usage.service_tier`); absent: the protocol's standard tier.
   */
  serviceTier?: string;
}

/** Synthesizes a realistic response in the protocol of the request, as JSON or as that protocol's SSE sequence. */
export interface ScriptedScript extends EmulatorScriptOptions {
  type: 'scripted';
  /** Default: inferred from the request path. */
  protocol?: EmulatorProtocolId;
  /** Default: the model named by the request. */
  model?: string;
  content: ScriptedContent[];
  /** The wire value, verbatim (`end_turn`, `tool_calls`, `MAX_TOKENS`, `max_output_tokens`, …). Default: the protocol's normal stop. */
  finishReason?: string;
  usage?: ScriptedUsage;
  /** Characters per text delta and per tool-argument fragment. Default 8. */
  chunkSize?: number;
  fault?: EmulatorFault;
}

/** What the emulator does with one request. */
export type EmulatorScript = ReplayScript | JsonScript | SseScript | ScriptedScript;

/** One request the emulator received. */
export interface RecordedRequest {
  method: string;
  /** The URL path without the query string. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** Parsed JSON, the raw text when it is not JSON, `undefined` when empty. */
  body: unknown;
  /** The protocol matched from the path suffix, `undefined` for unknown paths. */
  protocol: EmulatorProtocolId | undefined;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:43210`. */
  readonly url: string;
  /** Queues a script; each non-GET request to a scripted endpoint consumes one, first in first out. */
  enqueue(script: EmulatorScript): void;
  /** Drops every queued script (test isolation after a request that never reached the emulator). */
  clear(): void;
  /** Script used when the queue is empty; without one such requests get a 500 `emulator: no script queued`. */
  setDefault(script: EmulatorScript | undefined): void;
  /**
   * Answers the token-count endpoints (Anthropic's `…/messages/count_tokens`, Gemini's and Vertex's
   * `…/models/{m}:countTokens`, OpenAI's `…/responses/input_tokens`, Bedrock's
   * `/model/{id}/count-tokens`, Vertex Claude's `…/anthropic/models/count-tokens:rawPredict`) with `script` (an error
   * status, a `delayHeadersMs` fault) instead of their count; `undefined` restores the count. Those
   * endpoints never take queued scripts: unless told otherwise they answer, in the protocol's shape,
   * one token per four characters of the request body as JSON (at least one).
   */
  setCountScript(script: JsonScript | undefined): void;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Stops the server and destroys open sockets, stalled responses included. */
  close(): Promise<void>;
}

/** Options of `startEmulator`. */
export interface EmulatorOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Only loopback is supported. */
  host?: '127.0.0.1';
  /** Called once per request when its response has ended or its connection closed (e.g. to log it). */
  onResponse?: (served: ServedRequest) => void;
  /**
   * The field scripted Chat Completions answers write reasoning in, as the compatible host played
   * writes it — pass its preset's `quirks.reasoningFields[0]`: `reasoning_content` (the default;
   * DeepSeek, Moonshot), `reasoning` (Groq, Cerebras) or `reasoning_details` (OpenRouter).
   */
  chatReasoningField?: ChatReasoningField;
}

/** One request the emulator answered, as reported to {@link EmulatorOptions.onResponse}. */
export interface ServedRequest {
  method: string;
  /** The URL path without the query string. */
  path: string;
  /** The HTTP status sent; `undefined` when the connection closed before the headers were sent. */
  status: number | undefined;
  /** False when the connection closed before the whole response was written (a fault or a client abort). */
  complete: boolean;
  /** From the request's arrival to the end of the response. */
  durationMs: number;
}
