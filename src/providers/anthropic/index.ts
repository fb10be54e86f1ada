/**
 * `switchyard-ai/anthropic`: the Anthropic Messages API adapter. Like every provider entry it exports
 * the factory, its options type and the per-request `providerOptions.anthropic` type, nothing else.
 */
import type { Adapter } from '../../core/adapter.ts';
import { createHttpAdapter } from '../common/http-adapter.ts';
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

export type { AnthropicOptions, AnthropicProviderOptions } from './options.ts';
