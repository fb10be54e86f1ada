/** Options of `createOpenAI`. */
import type { OpenAIAccount } from '../openai/headers.ts';
import type { AdapterOptions } from '../shared/options.ts';
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
