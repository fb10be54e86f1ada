/**
 * `switchyard-ai/openai`: the OpenAI Chat Completions adapter. Like every provider entry it exports the
 * factory, its options type and the per-request `providerOptions.openai` type (plus the types the
 * options refer to).
 */
import type { Adapter } from '../../core/adapter.ts';
import { catalog } from '../catalog/openai.generated.ts';
import { accountHeaders } from '../openai/headers.ts';
import { createHttpAdapter } from '../common/http-adapter.ts';
import { chatCredentials, createChatDefinition } from './definition.ts';
import type { OpenAIOptions } from './options.ts';
import { mergeQuirks, openaiQuirks } from './quirks.ts';

export type { CapabilityOverrides } from './capabilities.ts';
export type { OpenAIOptions, OpenAIProviderOptions } from './options.ts';
export type { ChatQuirks } from './quirks.ts';

/**
 * Creates the OpenAI adapter (name `openai`, protocol `openai-chat`, `POST {baseURL}/chat/completions`).
 * Never throws for a missing key: the key comes from `apiKey`, else `OPENAI_API_KEY`, and a call
 * without one fails before any HTTP call with an `AuthError` (`not_configured`). The base URL comes
 * from `baseURL`, else `OPENAI_BASE_URL`. `organization` / `project` become the
 * `OpenAI-Organization` / `OpenAI-Project` headers.
 *
 * @example
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
 * const response = await openai.complete({ model: 'openai:gpt-4.1-mini', transcript, maxOutputTokens: 1024 });
 */
export function createOpenAI(options: OpenAIOptions = {}): Adapter {
  const quirks = mergeQuirks(openaiQuirks, options.quirks);
  const headers = accountHeaders(options);
  const definition = createChatDefinition({
    name: 'openai',
    quirks,
    headers,
    strictTools: options.strictTools,
    catalog,
  });
  // A base URL set in code (`quirks.baseURL`) wins over OPENAI_BASE_URL.
  const credentials = chatCredentials(quirks);
  if (options.quirks?.baseURL !== undefined) credentials.baseURLVariables = [];
  return createHttpAdapter(definition, { ...options, credentials });
}
