/**
 * Switchyard for people building apps: the client (`createSwitchyard`), conversations, tools,
 * the transcript and its events, errors, observers, config and prices. Adapter authors find the
 * stream builder, tool-id map, JSON fragments and the provider-type table in
 * `switchyard-ai/adapter-kit`; routing and availability primitives are in `switchyard-ai/routing`.
 * `test/package.test.ts` pins this list.
 */
export type { Adapter, CallOptions, ModelInfo, ProtocolId, RetryInfo } from './core/adapter.ts';
export type {
  Capabilities,
  CapabilityName,
  CapabilityOverrides,
  ModelCapabilities,
} from './core/capabilities.ts';
export {
  AdapterError,
  AuthError,
  CancelledError,
  ContextOverflowError,
  type ErrorClass,
  errorClasses,
  InvalidRequestError,
  isAdapterError,
  isAuthError,
  isCancelledError,
  isContextOverflowError,
  isInvalidRequestError,
  isNetworkError,
  isRateLimitError,
  isServerError,
  NetworkError,
  RateLimitError,
  ServerError,
} from './core/errors/index.ts';
export { EventStream } from './core/event-stream.ts';
export type * from './core/events.ts';
export { type FinishReason, finishReasons } from './core/finish-reason.ts';
export type { MessageId, ModelId, RequestId, SessionId, ToolCallId } from './core/ids.ts';
export type { JsonObject, JsonValue } from './core/json.ts';
export {
  consoleLogger,
  createConsoleLogger,
  createMemoryLogger,
  type LogFields,
  type Logger,
  type LogLevel,
  silentLogger,
} from './core/logger.ts';
export type { MetadataMap } from './core/metadata.ts';
export type {
  CanonicalRequest,
  CanonicalResponse,
  OutputSchema,
  PromptCacheRequest,
  ReasoningRequest,
} from './core/request.ts';
export type { FreeformFormat, ToolChoice, ToolSpec } from './core/tools.ts';
export { freeformText, freeformTool } from './core/tools.ts';
export type {
  CustomPart,
  DataRef,
  FilePart,
  Item,
  ItemKind,
  MediaPart,
  Part,
  ReasoningPart,
  StructuredPart,
  TextPart,
  ToolCallPart,
  ToolOutput,
  ToolResultPart,
  Transcript,
} from './core/transcript.ts';
export { systemText, userText } from './core/transcript.ts';
export {
  type ParseResult,
  parseTranscript,
  stringifyTranscript,
  type ValidationIssue,
} from './core/transcript-schema.ts';
export type { Cost, Usage } from './core/usage.ts';
export { type Reply, textOf, toolCallsOf } from './core/reply.ts';
export {
  addUsage,
  assistantItem,
  toolResultItem,
  toolResultPart,
  type ToolResultValue,
} from './conversation/helpers.ts';
export {
  Conversation,
  type ConversationSettings,
  type ConversationSnapshot,
} from './conversation/conversation.ts';
export { Turn } from './conversation/turn.ts';
export type {
  CallCompletedEvent,
  CallEvent,
  CallFailedEvent,
  CallFirstChunkEvent,
  CallRetriedEvent,
  CallStartedEvent,
  Observer,
} from './observers/types.ts';
export { createJsonLinesReporter, type JsonLinesReporterOptions, summarizeEvent } from './observers/jsonl.ts';
export {
  computeCost,
  createPriceTable,
  type ModelPrices,
  type PriceTable,
  type PriceTableOptions,
  reprice,
  type TieredPrice,
} from './pricing/index.ts';
export {
  ConfigError,
  type ConfigIssue,
  parseConfig,
  parseConfigYaml,
  type SwitchyardConfig,
} from './registry/config.ts';
export type { ModelFacts } from './registry/model-facts.ts';
export type { MatchKind, ModelListing, ResolvedModel } from './registry/registry.ts';
export {
  createSwitchyard,
  type ModelDescription,
  type Switchyard,
  type SwitchyardOptions,
} from './switchyard.ts';
export type { SwitchyardRequest } from './switchyard-input.ts';
export type { TokenCount, TokenCountOptions } from './switchyard-count.ts';
export {
  type InferSchema,
  type SchemaLike,
  StructuredOutputError,
  type Tool,
  type ToolSchema,
  tool,
} from './schemas/index.ts';
