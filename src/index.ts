/** Switchyard: one canonical transcript for every LLM provider. The core, provider-agnostic API. */
export { accumulateResponse, ResponseAccumulator } from './core/accumulator.ts';
export type {
  Adapter,
  AdapterSession,
  ProtocolId,
  CallOptions,
  ModelInfo,
  RetryInfo,
  TokenEstimateInput,
} from './core/adapter.ts';
export { createSession } from './core/adapter.ts';
export type {
  Capabilities,
  CapabilityName,
  CapabilityOverrides,
  ModelCapabilities,
} from './core/capabilities.ts';
export { requiredCapabilities } from './core/capabilities.ts';
export { assertCapabilities, assertContextWindow, contextOverflowFactor } from './core/capability-check.ts';
export {
  AdapterError,
  type AdapterErrorOptions,
  AuthError,
  CancelledError,
  ContextOverflowError,
  classifyError,
  createAdapterError,
  type ErrorBody,
  type ErrorClass,
  type ErrorRule,
  errorClasses,
  InvalidRequestError,
  isAdapterError,
  isAuthError,
  isCancelledError,
  isContextOverflowError,
  isInvalidRequestError,
  isNetworkError,
  isRateLimitError,
  isRetryableClass,
  isServerError,
  mapStatusToErrorClass,
  NetworkError,
  RateLimitError,
  ServerError,
} from './core/errors/index.ts';
export { EventStream } from './core/event-stream.ts';
export type * from './core/events.ts';
export { type FinishReason, finishReasons } from './core/finish-reason.ts';
export {
  createRequestId,
  createSessionId,
  createToolCallId,
  type MessageId,
  type ModelId,
  type RequestId,
  type SessionId,
  splitModelId,
  type ToolCallId,
  toolCallId,
} from './core/ids.ts';
export { isJsonObject, type JsonObject, type JsonValue } from './core/json.ts';
export {
  consoleLogger,
  createConsoleLogger,
  createMemoryLogger,
  type LogFields,
  type Logger,
  type LogLevel,
  silentLogger,
} from './core/logger.ts';
export { isMetadataKey, type MetadataMap, sortMetadata } from './core/metadata.ts';
export { JsonFragments, repairJsonObject } from './core/partial-json.ts';
export type {
  CanonicalRequest,
  CanonicalResponse,
  OutputSchema,
  PromptCacheRequest,
  ReasoningRequest,
} from './core/request.ts';
export { type BlockKey, StreamBuilder, type StreamBuilderContext } from './core/stream-builder.ts';
export { anyToolId, hashId, ToolIdMap, type ToolIdRule } from './core/tool-id-map.ts';
export type { ToolChoice, ToolSpec } from './core/tools.ts';
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
export { checkTranscript, type TranscriptViolation } from './core/transcript-invariants.ts';
export { requestSchema, validateCallOptions, validateRequest } from './core/request-schema.ts';
export {
  formatPath,
  type ParseResult,
  parseTranscript,
  stringifyTranscript,
  transcriptSchema,
  type ValidationIssue,
} from './core/transcript-schema.ts';
export { type Cost, emptyUsage, totalInputTokens, type Usage, usageFromInclusive } from './core/usage.ts';
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
export {
  addCosts,
  computeCost,
  createPriceTable,
  defaultPriceTable,
  type ModelPrices,
  type PriceSnapshot,
  type PriceTable,
  type PriceTableOptions,
  reprice,
  type TieredPrice,
} from './pricing/index.ts';
export {
  type ProviderTypeCreateOptions,
  type ProviderTypeDefinition,
  type ProviderTypeTable,
  createProviderTypeTable,
  loadProviderTypeTable,
  registerProviderType,
} from './registry/provider-type-table.ts';
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
  type Admission,
  Availability,
  type AvailabilityPolicy,
  type AvailabilityOperation,
  type AvailabilityRecord,
  type AvailabilityStore,
  applyTransition,
  type CircuitState,
  createMemoryAvailabilityStore,
  defaultAvailabilityPolicy,
  type TransitionOutcome,
} from './routing/availability.ts';
export {
  type RoutingAttempt,
  type RoutingDecision,
  routingDecision,
  routingDecisionOfError,
} from './routing/decision.ts';
export type { RouteRequest } from './routing/router.ts';
export {
  createSwitchyard,
  type ModelDescription,
  type Switchyard,
  type SwitchyardOptions,
} from './switchyard.ts';
export { matchesGlob } from './core/glob.ts';
export {
  type ExecutableTool,
  type InferSchema,
  type SchemaIssue,
  type SchemaLike,
  StructuredOutputError,
  type Tool,
  type ToolDefinition,
  type ToolSchema,
  tool,
  toJsonSchema,
  validateValue,
} from './schemas/index.ts';
export type { SwitchyardRequest } from './switchyard-input.ts';
export { createJsonLinesReporter, type JsonLinesReporterOptions, summarizeEvent } from './observers/jsonl.ts';
