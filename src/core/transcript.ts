/** The canonical transcript: items with kinds and parts. Pure types. */
import type { MessageId, ToolCallId } from './ids.ts';
import type { JsonObject, JsonValue } from './json.ts';
import type { MetadataMap } from './metadata.ts';

/** The role of an item. System, developer and context items are all instructions to the model. */
export type ItemKind = 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'context';

/** Where binary data lives: inline base64, raw bytes, a URI, or a handle into a host artifact store. */
export type DataRef =
  | { type: 'base64'; data: string }
  | { type: 'bytes'; bytes: Uint8Array }
  | { type: 'uri'; uri: string }
  | { type: 'handle'; handle: string };

/** Plain text. */
export interface TextPart {
  type: 'text';
  text: string;
  /**
   * Set when the runtime, not the provider, closed this part: the response was cut (error, cancel,
   * truncated or spliced stream) or, for a tool call, its input was not complete JSON (output
   * limit). The content is what arrived; a tool call's input was repaired and must not be executed
   * as if the model had finished it.
   */
  incomplete?: true;
  metadata?: MetadataMap;
}

/** Image, audio, video or other binary media. */
export interface MediaPart {
  type: 'media';
  modality: 'image' | 'audio' | 'video' | 'binary';
  mimeType: string;
  data: DataRef;
  metadata?: MetadataMap;
}

/** A file attachment (e.g. a PDF document). */
export interface FilePart {
  type: 'file';
  mimeType: string;
  data: DataRef;
  filename?: string;
  metadata?: MetadataMap;
}

/** A JSON value, optionally with the schema it conforms to. */
export interface StructuredPart {
  type: 'structured';
  value: JsonValue;
  schema?: JsonObject;
  metadata?: MetadataMap;
}

/**
 * Model reasoning. `text` is the readable reasoning or its summary; `signature` and `data` are the
 * provider's opaque payloads (thinking signature, redacted thinking, encrypted content), kept
 * verbatim so they can be sent back to the provider that produced them (`provider`).
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** Provider signature over the reasoning (Anthropic `signature`, Gemini `thoughtSignature`). */
  signature?: string;
  /** Opaque payload: Anthropic redacted thinking `data`, OpenAI `encrypted_content`. */
  data?: string;
  /** True when the provider withheld the readable text. */
  redacted?: boolean;
  /**
   * The provider that produced it; signatures are only valid there. On a host serving several model
   * families, qualified by the family (`vertex/anthropic`, `bedrock/amazon`).
   */
  provider?: string;
  /** Set when the runtime closed the part (see {@link TextPart.incomplete}). */
  incomplete?: true;
  metadata?: MetadataMap;
}

/** A tool call requested by the model. `input` is always a JSON object. */
export interface ToolCallPart {
  type: 'tool-call';
  id: ToolCallId;
  name: string;
  input: JsonObject;
  /** Provider signature riding on the call (Gemini `thoughtSignature`), kept verbatim. */
  signature?: string;
  /** The provider that produced the call (`vertex/google` on a host serving several model families). */
  provider?: string;
  /**
   * Set when the input is not what the provider finished sending (cut by cancel, error, a spliced
   * or truncated stream, or the output limit): `input` is a repair of the fragments that arrived
   * (raw text in metadata `switchyard.raw_input` when it did not parse). Never execute it blindly.
   */
  incomplete?: true;
  metadata?: MetadataMap;
}

/** What a tool returned. */
export type ToolOutput =
  { type: 'text'; text: string } | { type: 'json'; value: JsonValue } | { type: 'parts'; parts: Part[] };

/** The result of a tool call, answering the call with id `callId`. */
export interface ToolResultPart {
  type: 'tool-result';
  callId: ToolCallId;
  /** The tool's name, when known (Gemini matches responses by name). */
  name?: string;
  output: ToolOutput;
  isError: boolean;
  metadata?: MetadataMap;
}

/** Provider-specific content that must round-trip unchanged to the provider that produced it. */
export interface CustomPart {
  type: 'custom';
  provider: string;
  /** The provider's own type name, e.g. `server_tool_use`. */
  kind: string;
  data: JsonValue;
  metadata?: MetadataMap;
}

/** Any content part. */
export type Part =
  | TextPart
  | MediaPart
  | FilePart
  | StructuredPart
  | ReasoningPart
  | ToolCallPart
  | ToolResultPart
  | CustomPart;

/** One entry of the transcript. */
export interface Item {
  id?: MessageId;
  kind: ItemKind;
  parts: Part[];
  metadata?: MetadataMap;
}

/** A whole conversation, oldest first. */
export type Transcript = Item[];

/** Shorthand for a user item holding one text part. */
export function userText(text: string): Item {
  return { kind: 'user', parts: [{ type: 'text', text }] };
}

/** Shorthand for a system item holding one text part. */
export function systemText(text: string): Item {
  return { kind: 'system', parts: [{ type: 'text', text }] };
}
