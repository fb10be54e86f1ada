/**
 * `switchyard-ai/adapter-kit`: what an adapter author needs to write an adapter (or a whole new
 * protocol) that behaves like the built-in ones — the stream builder that enforces the stream
 * contract, the tool-id map, partial-JSON fragments, error classification, request and transcript
 * checks, capability pre-flight, ids, usage arithmetic and the provider-type table a new protocol
 * joins (`registerProviderType`). Apps import `switchyard-ai`; routing primitives are in
 * `switchyard-ai/routing`. `test/package.test.ts` pins this list.
 */
export { accumulateResponse, ResponseAccumulator } from './core/accumulator.ts';
export { type AdapterSession, createSession, type TokenEstimateInput } from './core/adapter.ts';
export { requiredCapabilities } from './core/capabilities.ts';
export { assertCapabilities, assertContextWindow, contextOverflowFactor } from './core/capability-check.ts';
export {
  type AdapterErrorOptions,
  classifyError,
  createAdapterError,
  type ErrorBody,
  type ErrorRule,
  isRetryableClass,
  mapStatusToErrorClass,
} from './core/errors/index.ts';
export { createRequestId, createSessionId, createToolCallId, splitModelId, toolCallId } from './core/ids.ts';
export { isJsonObject } from './core/json.ts';
export { isMetadataKey, sortMetadata } from './core/metadata.ts';
export { JsonFragments, repairJsonObject } from './core/partial-json.ts';
export { requestSchema, validateCallOptions, validateRequest } from './core/request-schema.ts';
export { type BlockKey, StreamBuilder, type StreamBuilderContext } from './core/stream-builder.ts';
export { anyToolId, hashId, ToolIdMap, type ToolIdRule } from './core/tool-id-map.ts';
export { checkTranscript, type TranscriptViolation } from './core/transcript-invariants.ts';
export { formatPath, transcriptSchema } from './core/transcript-schema.ts';
export { emptyUsage, totalInputTokens, usageFromInclusive } from './core/usage.ts';
export { addCosts, defaultPriceTable, type PriceSnapshot } from './pricing/index.ts';
export {
  createProviderTypeTable,
  loadProviderTypeTable,
  type ProviderTypeCreateOptions,
  type ProviderTypeDefinition,
  type ProviderTypeTable,
  registerProviderType,
} from './registry/provider-type-table.ts';
export { type SchemaIssue, toJsonSchema, validateValue } from './schemas/index.ts';
