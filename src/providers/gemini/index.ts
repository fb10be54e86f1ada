/**
 * `switchyard-ai/gemini`: the Google Gemini adapter (`gemini:<model>`). Like every provider entry it
 * exports the factory, its options type and the per-request `providerOptions.gemini` type.
 */
import type { Adapter } from '../../core/adapter.ts';
import { createHttpAdapter } from '../common/http-adapter.ts';
import { createGeminiDefinition } from './definition.ts';
import { type GeminiOptions, geminiCredentials } from './options.ts';

export type { GeminiOptions, GeminiProviderOptions } from './options.ts';

/**
 * Creates the Gemini adapter (never throws for a missing key). The API key comes from
 * `options.apiKey`, else `GEMINI_API_KEY`, else `GOOGLE_API_KEY`, and is sent as the
 * `x-goog-api-key` header. Without any key (and no credential header in `options.headers`), a call
 * fails with an `AuthError` (`not_configured`) before any HTTP call.
 *
 * @example
 * const gemini = createGemini();
 * const response = await gemini.complete({
 *   model: 'gemini:gemini-2.5-flash',
 *   transcript: [userText('Hello')],
 *   maxOutputTokens: 1024,
 * });
 */
export function createGemini(options: GeminiOptions = {}): Adapter {
  // The JSON Schema fields exist on v1beta only: `auto` falls back to the converter on a /v1 URL.
  const stableApi = /\/v1\/?$/.test(options.baseURL ?? '');
  const useJsonSchema = options.useJsonSchema ?? (stableApi ? false : 'auto');
  const definition = createGeminiDefinition({ useJsonSchema });
  return createHttpAdapter(definition, { ...options, credentials: geminiCredentials });
}
