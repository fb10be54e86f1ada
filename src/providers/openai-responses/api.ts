/** Responses API wire types. Response types are lenient: every field optional, checked at use. */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { WireError } from '../openai/errors.ts';

export type { WireError };

/** A content part of an input message. */
export type InputContent =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail: string }
  | { type: 'input_file'; filename: string; file_data: string }
  | { type: 'input_file'; file_url: string }
  | { type: 'output_text'; text: string; annotations: JsonValue[] };

/** One input item (messages, function calls and outputs, reasoning, or a built-in item replayed verbatim). */
export type InputItem =
  | {
      type: 'message';
      role: 'user' | 'assistant' | 'system' | 'developer';
      content: InputContent[];
      id?: string;
      status?: string;
    }
  | { type: 'function_call'; call_id: string; name: string; arguments: string; id?: string }
  | { type: 'function_call_output'; call_id: string; output: string | InputContent[] }
  | { type: 'custom_tool_call'; call_id: string; name: string; input: string; id?: string }
  | { type: 'custom_tool_call_output'; call_id: string; output: string | InputContent[] }
  | {
      type: 'reasoning';
      id: string;
      summary: Array<{ type: 'summary_text'; text: string }>;
      encrypted_content?: string;
    }
  | JsonObject;

/** A content entry of an output message (`output_text` or `refusal`). */
export interface WireContent {
  type?: string;
  text?: string;
  refusal?: string;
  annotations?: JsonValue[];
}

/** One output item of a response (or of `response.output_item.added/done`). */
export interface WireItem {
  id?: string;
  type?: string;
  status?: string;
  role?: string;
  content?: WireContent[] | null;
  summary?: Array<{ type?: string; text?: string }> | null;
  encrypted_content?: string | null;
  call_id?: string;
  name?: string;
  arguments?: string | null;
  /** A `custom_tool_call`'s text. */
  input?: string | null;
  [field: string]: unknown;
}

/** Token usage of a response. */
export interface WireUsage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens?: number;
  output_tokens_details?: { reasoning_tokens?: number } | null;
  total_tokens?: number;
}

/** A `response` object: the whole body of `complete()`, and the payload of lifecycle events. */
export interface WireResponse {
  id?: string;
  object?: string;
  model?: string;
  status?: string;
  error?: WireError | null;
  incomplete_details?: { reason?: string } | null;
  output?: WireItem[] | null;
  usage?: WireUsage | null;
  /** The tier that served the call (`default`, `flex`, `priority`, `scale`); `auto` in the events before the end. */
  service_tier?: JsonValue;
}

/** One stream event (`response.*` or `error`); fields depend on the type. */
export interface WireEvent {
  type?: string;
  response?: WireResponse;
  item?: WireItem;
  output_index?: number;
  content_index?: number;
  summary_index?: number;
  item_id?: string;
  delta?: string;
  text?: string;
  arguments?: string;
  part?: WireContent;
  annotation?: JsonValue;
  error?: WireError | null;
  message?: unknown;
  code?: unknown;
}
