/**
 * `switchyard/anthropic`: the Anthropic Messages API adapter. Like every provider entry it exports
 * the factory, its options type and the per-request `providerOptions.anthropic` type, nothing else.
 */
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

export type { AnthropicOptions, AnthropicProviderOptions } from './options.ts';
