/** `switchyard/openai`: the OpenAI Chat Completions adapter. */
import type { Adapter } from '../../core/adapter.ts';
import { accountHeaders } from '../openai/headers.ts';
import { createHttpAdapter } from '../shared/http-adapter.ts';
import { assertApiKey, createChatDefinition, resolveApiKey } from './definition.ts';
import type { OpenAIOptions } from './options.ts';
import { mergeQuirks, openaiQuirks } from './quirks.ts';

export type { CapabilityOverrides } from './capabilities.ts';
export type { OpenAIOptions } from './options.ts';
export type { ChatQuirks } from './quirks.ts';

/**
 * Creates the OpenAI adapter (name `openai`, protocol `openai-chat`, `POST {baseURL}/chat/completions`).
 * The key comes from `apiKey`, else `OPENAI_API_KEY`; a missing key throws an `AuthError`
 * (`missing_api_key`). `organization` / `project` become the `OpenAI-Organization` /
 * `OpenAI-Project` headers.
 *
 * @example
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
 * const response = await openai.complete({ model: 'openai:gpt-4.1-mini', transcript, maxOutputTokens: 1024 });
 */
export function createOpenAI(options: OpenAIOptions = {}): Adapter {
  const quirks = mergeQuirks(openaiQuirks, options.quirks);
  const apiKey = resolveApiKey(options.apiKey, quirks.apiKeyEnv);
  assertApiKey('openai', quirks, apiKey);
  const headers = accountHeaders(options);
  const definition = createChatDefinition({
    name: 'openai',
    quirks,
    headers,
    strictTools: options.strictTools,
    capabilities: options.capabilities,
    models: options.models,
  });
  return createHttpAdapter(definition, { ...options, apiKey });
}
