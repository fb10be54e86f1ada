/** The normalized stream event union and its contract. */
import type { RequestId, ToolCallId } from './ids.ts';
import type { JsonObject } from './json.ts';
import type { MetadataMap } from './metadata.ts';
import type { CanonicalResponse } from './request.ts';
import type { CustomPart } from './transcript.ts';
import type { Usage } from './usage.ts';

/**
 * One event of a canonical response stream.
 *
 * The contract every adapter's `stream()` meets (checked by `assertStreamInvariants`):
 * 1. `message-start` comes first, exactly once, before any part event.
 * 2. Every part has an `index` (its position in `response.content`); indices of part events are
 *    non-decreasing, and a new part's index is greater than every earlier part's.
 * 3. Text and reasoning parts are `*-start` → `*-delta`* → `*-end`, each started and ended once;
 *    `reasoning-end` carries the provider's signature / opaque payload; a redacted reasoning part
 *    says so on its `reasoning-start` already (`redacted: true`).
 * 4. A tool call is `tool-call-start` (id, name) → `tool-call-delta`* carrying the provider's raw
 *    JSON fragments verbatim → `tool-call-end` carrying the parsed input, always a JSON object.
 *    Tool-call ids are unique and non-empty.
 * 5. `custom` carries a whole provider-specific part at its index.
 * 6. `usage` may appear any number of times; the last one wins; counts are non-negative.
 * 7. `finish` is emitted exactly once and is always last — also after an error (finish reason
 *    `error`, then the iterator throws the classified error) and after an abort (finish reason
 *    `cancelled`, then the iterator ends). It carries the complete response: every part that
 *    arrived, with open parts closed (an interrupted tool call gets whatever input parses, else `{}`).
 * 8. A part the runtime closed rather than the provider (error, abort, truncated or spliced stream)
 *    carries `incomplete: true` on its `*-end` event, and so does a tool call whose input was not
 *    complete JSON (output limit); the same marker is on the part in `finish` and in the transcript.
 *    A stream whose provider never sent its finish signal ends with finish reason `error` and a
 *    retryable `NetworkError` with `providerCode: 'stream_truncated'`.
 */
export type StreamEvent =
  | MessageStartEvent
  | TextStartEvent
  | TextDeltaEvent
  | TextEndEvent
  | ReasoningStartEvent
  | ReasoningDeltaEvent
  | ReasoningEndEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallEndEvent
  | CustomEvent
  | UsageEvent
  | FinishEvent;

/** The provider accepted the call and the response begins. */
export interface MessageStartEvent {
  type: 'message-start';
  requestId: RequestId;
  model: string;
  provider: string;
  /**
   * The tag of this response's reasoning, tool-call and custom parts (their `provider`) when it is
   * not `provider`: `name/family` on a host serving several model families (`vertex/anthropic`).
   */
  provenance?: string;
  responseId?: string;
  /**
   * The service tier the provider named before any content (OpenAI Chat's first chunk), for a client
   * protocol that states it at its own start (Anthropic's `message_start`); `usage.serviceTier` too.
   */
  serviceTier?: string;
}

export interface TextStartEvent {
  type: 'text-start';
  index: number;
  /**
   * What is known of the part as it opens (OpenAI's `<adapter>.refusal: true`: the model refuses),
   * so a consumer can stream it as such; `text-end` carries the part's whole metadata.
   */
  metadata?: MetadataMap;
}
export interface TextDeltaEvent {
  type: 'text-delta';
  index: number;
  delta: string;
}
export interface TextEndEvent {
  type: 'text-end';
  index: number;
  /** The runtime closed the part: the provider never ended it. */
  incomplete?: true;
  metadata?: MetadataMap;
}

export interface ReasoningStartEvent {
  type: 'reasoning-start';
  index: number;
  /**
   * The part is the provider's redacted reasoning (Anthropic `redacted_thinking`, Converse
   * `redactedContent`): it has no text, and its opaque payload comes whole on `reasoning-end`
   * (`data`, with `redacted: true`), so a consumer can stream it as such (an Anthropic client's
   * `redacted_thinking` block). Absent for any other reasoning.
   */
  redacted?: true;
}
export interface ReasoningDeltaEvent {
  type: 'reasoning-delta';
  index: number;
  delta: string;
  /**
   * This delta begins part `part` (1, 2, …) of the reasoning's summary (a Responses upstream's
   * `reasoning_summary_part.added`): its `delta` is the separator joining the parts in the part's
   * text (a blank line), not text of either, so a consumer with a place per summary part (a
   * Responses client) can open the next one. Absent on every other delta.
   */
  part?: number;
}
/** Ends a reasoning part; carries the provider's signature and opaque payload verbatim. */
export interface ReasoningEndEvent {
  type: 'reasoning-end';
  index: number;
  signature?: string;
  data?: string;
  redacted?: boolean;
  /** The runtime closed the part: the provider never ended it. */
  incomplete?: true;
  metadata?: MetadataMap;
}

export interface ToolCallStartEvent {
  type: 'tool-call-start';
  index: number;
  id: ToolCallId;
  name: string;
  /**
   * What is known of the call as it opens (Anthropic's `anthropic.caller`: the code execution that
   * made the call), so a consumer can announce the call as such; `tool-call-end` carries the part's
   * whole metadata.
   */
  metadata?: MetadataMap;
}
/** A raw JSON fragment of the tool input, exactly as the provider sent it. */
export interface ToolCallDeltaEvent {
  type: 'tool-call-delta';
  index: number;
  id: ToolCallId;
  delta: string;
}
export interface ToolCallEndEvent {
  type: 'tool-call-end';
  index: number;
  id: ToolCallId;
  input: JsonObject;
  signature?: string;
  /** The input was cut (runtime close, or not complete JSON): `input` is a repair, not the model's. */
  incomplete?: true;
  metadata?: MetadataMap;
}

/** A whole provider-specific part (server tool call, tool search result, …). */
export interface CustomEvent {
  type: 'custom';
  index: number;
  part: CustomPart;
}

export interface UsageEvent {
  type: 'usage';
  usage: Usage;
}

/** Always the last event; carries the complete response. */
export interface FinishEvent {
  type: 'finish';
  response: CanonicalResponse;
}
