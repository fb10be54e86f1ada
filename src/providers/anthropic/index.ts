/** The Anthropic Messages API adapter: `createAnthropic(options)` and its building blocks. */
import type { Adapter } from '../../core/adapter.ts';
import { createHttpAdapter } from '../shared/http-adapter.ts';
import { createAnthropicDefinition } from './definition.ts';
import { type AnthropicOptions, resolveApiKey } from './options.ts';

/**
 * Creates the Anthropic adapter. The API key comes from `options.apiKey`, else `ANTHROPIC_API_KEY`;
 * without one, every call fails with an `AuthError` naming the variable, before any HTTP call.
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
  const apiKey = resolveApiKey(options.apiKey);
  const definition = createAnthropicDefinition({
    version: options.version,
    betas: options.betas,
    hasApiKey: apiKey !== undefined,
  });
  return createHttpAdapter(definition, { ...options, apiKey });
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
