/** Options of `createOpenAI` and the per-request `providerOptions.openai` pass-through. */
import type { JsonValue } from '../../core/json.ts';
import type { OpenAIAccount } from '../openai/headers.ts';
import type { AdapterOptions } from '../common/options.ts';
import type { CapabilityOverrides } from './capabilities.ts';
import type { ChatQuirks } from './quirks.ts';

/** Options of the OpenAI Chat Completions adapter. */
export interface OpenAIOptions extends AdapterOptions, CapabilityOverrides, OpenAIAccount {
  /** API key; default: the `OPENAI_API_KEY` environment variable. */
  apiKey?: string;
  /** Send `strict: true` on function tools (the schemas must then meet OpenAI's strict rules). Default false. */
  strictTools?: boolean;
  /** Adjust the protocol for an OpenAI-shaped proxy (e.g. `{maxTokensField: 'max_tokens'}`). */
  quirks?: Partial<ChatQuirks>;
}

/**
 * What `request.providerOptions[<adapter name>]` may carry (`providerOptions.openai`, or the host
 * name for OpenAI-compatible hosts): body fields merged verbatim into the request (`seed`,
 * `service_tier`, OpenRouter `provider` routing…).
 */
export type OpenAIProviderOptions = Record<string, JsonValue>;
