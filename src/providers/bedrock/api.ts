/** Bedrock Converse / ConverseStream wire types: what we send exactly, what we read leniently. */
import type { JsonObject, JsonValue } from '../../core/json.ts';

/** A prompt-cache checkpoint (`{cachePoint:{type:'default'}}`, `ttl: '1h'` for the one-hour cache), in system, messages or tools. */
export interface WireCachePoint {
  cachePoint: { type: 'default'; ttl?: '5m' | '1h' };
}

/** Image or document bytes (base64 in JSON) or an S3 location. */
export type WireSource = { bytes: string } | { s3Location: { uri: string; bucketOwner?: string } };

/** Reasoning content of an assistant message: signed text, or the provider's redacted bytes. */
export type WireReasoningContent =
  { reasoningText: { text: string; signature?: string } } | { redactedContent: string };

/** One content block of a Converse message (request or response). */
export interface WireContentBlock {
  text?: string;
  image?: { format: string; source: WireSource };
  document?: {
    format: string;
    name: string;
    source: WireSource;
    context?: string;
    citations?: { enabled: boolean };
  };
  toolUse?: { toolUseId: string; name: string; input: JsonValue };
  toolResult?: {
    toolUseId: string;
    content: Array<{ text?: string; json?: JsonValue; image?: JsonValue; document?: JsonValue }>;
    status?: 'success' | 'error';
  };
  reasoningContent?: WireReasoningContent;
  cachePoint?: { type: 'default'; ttl?: '5m' | '1h' };
  citationsContent?: JsonValue;
  guardContent?: JsonValue;
  [field: string]: unknown;
}

/** One message of the conversation. */
export interface WireMessage {
  role: 'user' | 'assistant';
  content: WireContentBlock[];
}

/** A tool in `toolConfig.tools`. */
export type WireTool = {
  /** `strict`: the call's input held to the schema (structured outputs). */
  toolSpec: { name: string; description?: string; inputSchema: { json: JsonObject }; strict?: true };
};

/** The Converse request body (the model id is in the path). */
export interface WireRequestBody {
  messages: WireMessage[];
  system?: Array<{ text: string } | WireCachePoint>;
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: Array<WireTool | WireCachePoint>; toolChoice?: JsonObject };
  additionalModelRequestFields?: JsonObject;
  [field: string]: unknown;
}

/** Token counts of a response (`usage`, or `metadata.usage` in a stream). */
export interface WireUsage {
  inputTokens?: unknown;
  outputTokens?: unknown;
  totalTokens?: unknown;
  cacheReadInputTokens?: unknown;
  cacheWriteInputTokens?: unknown;
  cacheReadInputTokenCount?: unknown;
  cacheWriteInputTokenCount?: unknown;
}

/** The Converse response body. */
export interface WireResponse {
  output?: { message?: { role?: string; content?: unknown } };
  stopReason?: unknown;
  usage?: WireUsage;
  metrics?: JsonValue;
  trace?: JsonValue;
  additionalModelResponseFields?: JsonValue;
  performanceConfig?: JsonValue;
  /** The tier that served the call (`{type: "default" | "priority" | "flex" | "reserved"}`), also in a stream's `metadata`. */
  serviceTier?: JsonValue;
}

/** A `contentBlockDelta` payload's `delta`. */
export interface WireDelta {
  text?: unknown;
  toolUse?: { input?: unknown };
  reasoningContent?: { text?: unknown; signature?: unknown; redactedContent?: unknown };
  citation?: unknown;
  [field: string]: unknown;
}
