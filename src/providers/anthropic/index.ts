/** The Anthropic Messages API adapter: `createAnthropic(options)` and its building blocks. */
import type { Adapter } from '../../core/adapter.ts';
import { createHttpAdapter } from '../shared/http-adapter.ts';
import { createAnthropicDefinition } from './definition.ts';
import { type AnthropicOptions, anthropicCredentials } from './options.ts';

/**
 * Creates the Anthropic adapter (never throws for a missing key). The API key comes from
 * `options.apiKey`, else `ANTHROPIC_API_KEY`; without one, every call fails with an `AuthError`
 * (`not_configured`) naming the variable, before any HTTP call. The base URL comes from
 * `options.baseURL`, else `ANTHROPIC_BASE_URL` (+ `/v1`, as in Anthropic's SDK).
 *
 * @example
 * const anthropic = createAnthropic();
 * const response = await anthropic.complete({
 *   model: 'anthropic:claude-sonnet-4-5',
 *   transcript: [userText('Hello')],
 *   maxOutputTokens: 1024,
 * });
 */
export function createAnthropic(options: AnthropicOptions = {}): Adapter {
  const definition = createAnthropicDefinition({ version: options.version, betas: options.betas });
  return createHttpAdapter(definition, { ...options, credentials: anthropicCredentials });
}

export type { WireContentBlock, WireMessage, WireTool, WireToolChoice } from './api.ts';
export { applyCacheBreakpoints, maxCacheBreakpoints } from './cache.ts';
export { anthropicCapabilities, type ModelProfile, modelProfile, type ThinkingMode } from './capabilities.ts';
export {
  type AnthropicDefinitionSettings,
  anthropicDefinition,
  createAnthropicDefinition,
} from './definition.ts';
export { errorRules, parseErrorBody } from './errors.ts';
export {
  type AnthropicOptions,
  type AnthropicRequestOptions,
  anthropicApiKeyVariable,
  defaultAnthropicVersion,
} from './options.ts';
export { buildRequest, convertMessages, convertToolChoice, convertTools } from './request.ts';
export { convertUsage, mapFinishReason, parseResponse } from './response.ts';
export { createStreamParser } from './stream.ts';
export { effortBudgets } from './thinking.ts';
export { estimateInputTokens } from './tokens.ts';
