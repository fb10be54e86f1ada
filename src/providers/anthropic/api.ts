/** Anthropic Messages API wire types: what we send exactly, what we read leniently. */
import type { JsonObject, JsonValue } from '../../core/json.ts';

/** A prompt-cache breakpoint marker. */
export interface WireCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** Where image or document bytes come from. */
export type WireSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'text'; media_type: 'text/plain'; data: string };

/** A text block (request or response); `citations` ride on assistant text. */
export interface WireTextBlock {
  type: 'text';
  text: string;
  citations?: JsonValue[];
  cache_control?: WireCacheControl;
}

/** An image block. */
export interface WireImageBlock {
  type: 'image';
  source: WireSource;
  cache_control?: WireCacheControl;
}

/** A document block (PDF or plain text). */
export interface WireDocumentBlock {
  type: 'document';
  source: WireSource;
  title?: string;
  context?: string;
  citations?: { enabled: boolean };
  cache_control?: WireCacheControl;
}

/** Extended thinking, sent back verbatim with its signature. */
export interface WireThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Thinking the API withheld, sent back verbatim. */
export interface WireRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** A client tool call. `caller` is set for programmatic (code execution) calls. */
export interface WireToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: JsonObject;
  caller?: JsonValue;
  cache_control?: WireCacheControl;
}

/** A client tool's result, always inside a user message. */
export interface WireToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<WireTextBlock | WireImageBlock | WireDocumentBlock | WireVerbatimBlock>;
  is_error?: boolean;
  cache_control?: WireCacheControl;
}

/** A block we did not build ourselves: a server tool block kept verbatim from an earlier response. */
export interface WireVerbatimBlock {
  type: string;
  cache_control?: WireCacheControl;
  [field: string]: unknown;
}

/** Any request content block. */
export type WireContentBlock =
  | WireTextBlock
  | WireImageBlock
  | WireDocumentBlock
  | WireThinkingBlock
  | WireRedactedThinkingBlock
  | WireToolUseBlock
  | WireToolResultBlock
  | WireVerbatimBlock;

/** One request message. */
export interface WireMessage {
  role: 'user' | 'assistant';
  content: WireContentBlock[];
}

/** A client tool definition. */
export interface WireTool {
  name: string;
  description?: string;
  input_schema: JsonObject;
  /** Strict tool use: the call's input held to `input_schema`. */
  strict?: true;
  cache_control?: WireCacheControl;
}

/** `tool_choice`. */
export type WireToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

/** `thinking`. */
export type WireThinking = { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };

/** `output_config`: the effort (with adaptive thinking, or alone on Opus 4.5+), and the structured-output format. */
export interface WireOutputConfig {
  effort?: 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  format?: { type: 'json_schema'; schema: JsonObject };
}

/** The usage object of a message (`message_start`, `message_delta`, a whole message). */
export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_1h_input_tokens?: number | null } | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
  server_tool_use?: JsonValue;
  iterations?: JsonValue;
  /** The tier that served the call (`standard`, `priority`, `batch`), in a whole message and `message_start`. */
  service_tier?: JsonValue;
}

/** A response content block, read leniently: every field but `type` may be missing. */
export interface WireResponseBlock {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: JsonValue;
  caller?: JsonValue;
  citations?: JsonValue[] | null;
  [field: string]: JsonValue | undefined;
}

/** A whole response message (`complete()`, and the `message` of `message_start`). */
export interface WireResponseMessage {
  id?: string;
  type?: string;
  model?: string;
  content?: WireResponseBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  stop_details?: JsonValue;
  container?: JsonValue;
  context_management?: JsonValue;
  usage?: WireUsage;
}

/** An error body: `{type:'error', error:{type, message}}` (also the SSE `error` event). */
export interface WireErrorBody {
  type?: string;
  error?: { type?: string; message?: string };
}

/** A content-block delta. */
export interface WireDelta {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  partial_json?: string;
  citation?: JsonValue;
  content?: string | null;
}

/** One decoded SSE payload, read leniently (the `type` field picks the shape). */
export interface WireStreamEvent {
  type: string;
  index?: number;
  message?: WireResponseMessage;
  content_block?: WireResponseBlock;
  delta?: WireDelta & {
    stop_reason?: string | null;
    stop_sequence?: string | null;
    stop_details?: JsonValue;
    container?: JsonValue;
  };
  usage?: WireUsage;
  context_management?: JsonValue;
  error?: { type?: string; message?: string };
}

/** One entry of `GET /v1/models`. */
export interface WireModel {
  id: string;
  display_name?: string;
  max_input_tokens?: number;
  max_tokens?: number;
}
