/** Chat Completions wire types. Response types are lenient: every field optional, checked at use. */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { WireError } from '../openai/errors.ts';

export type { WireError };

/** A content part of a request message. Custom parts replayed to their own host are kept verbatim. */
export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: 'wav' | 'mp3' } }
  | { type: 'file'; file: { filename: string; file_data: string } }
  | JsonObject;

/** A tool call on an assistant request message; `arguments` is JSON text. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One OpenRouter `reasoning_details` entry (other fields are kept and replayed as received). */
export interface ReasoningDetail {
  type?: string;
  text?: string | null;
  summary?: string | null;
  signature?: string | null;
  data?: string | null;
  format?: string | null;
  id?: string | null;
  index?: number;
  [field: string]: unknown;
}

/** One request message. */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string | ChatContentPart[] | null;
  /** A user's participant name (from the item's `switchyard.name` metadata). */
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  reasoning_content?: string;
  reasoning?: string;
  reasoning_details?: ReasoningDetail[];
}

/** A function tool definition. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters: JsonObject; strict?: boolean };
}

/** A tool-call entry of a response message or a stream delta (fragments carry only some fields). */
export interface WireToolCall {
  index?: number;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: string | JsonValue | null };
}

/** An item of a content array (Mistral `text` / `thinking`, or anything else a host sends). */
export interface WireContentItem {
  type?: string;
  text?: string;
  thinking?: WireContentItem[] | string;
  [key: string]: unknown;
}

/** A response message or stream delta: both are read by the same code. */
export interface WireDelta {
  role?: string | null;
  content?: string | WireContentItem[] | null;
  refusal?: string | null;
  tool_calls?: WireToolCall[] | null;
  /** The legacy functions API: one call, no id. */
  function_call?: WireToolCall['function'] | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  reasoning_details?: ReasoningDetail[] | null;
  /** OpenAI's search models: `url_citation`s of the message text (streamed in any delta). */
  annotations?: JsonValue[] | null;
}

/** A choice of a completion (`message`) or of a chunk (`delta`). */
export interface WireChoice {
  index?: number;
  message?: WireDelta | null;
  delta?: WireDelta | null;
  finish_reason?: string | null;
  /** Moonshot puts the usage of a streamed response here, on the last choice. */
  usage?: WireUsage | null;
}

/** Token usage, with the fields of the hosts that extend it. */
export interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: {
    cached_tokens?: number;
    cache_write_tokens?: number;
    audio_tokens?: number;
  } | null;
  /** `accepted_prediction_tokens` / `rejected_prediction_tokens` are parts of `completion_tokens`, billed as output: not read. */
  completion_tokens_details?: { reasoning_tokens?: number; audio_tokens?: number } | null;
  /** DeepSeek. */
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
  /** Moonshot. */
  cached_tokens?: number;
  /** OpenRouter, in credits. */
  cost?: number;
}

/** A whole `chat.completion` or one `chat.completion.chunk`. */
export interface WireCompletion {
  id?: string;
  model?: string;
  choices?: WireChoice[] | null;
  usage?: WireUsage | null;
  /** The tier that served the call (`default`, `flex`, `priority`, `scale`; Groq `on_demand`), on every chunk. */
  service_tier?: JsonValue;
  /** Groq repeats usage here. */
  x_groq?: { usage?: WireUsage | null } | null;
  error?: WireError | string | null;
  /** Perplexity. */
  citations?: JsonValue;
  search_results?: JsonValue;
}
