/** Options of `createAnthropic`: the common adapter options plus Anthropic's version and beta flags. */
import type { AdapterOptions, CredentialSource } from '../common/options.ts';
import { providerTable } from '../common/provider-table.ts';

/** The `anthropic-version` header sent by default. */
export const defaultAnthropicVersion = '2023-06-01';

/** The environment variable the API key is read from when `apiKey` is not given. */
export const anthropicApiKeyVariable = providerTable.anthropic.keyVariables[0];

/** Options of `createAnthropic`. */
export interface AnthropicOptions extends AdapterOptions {
  /** API key; default `process.env.ANTHROPIC_API_KEY`. Without either, calls fail with an `AuthError`. */
  apiKey?: string;
  /** The `anthropic-version` header. Default `2023-06-01`. */
  version?: string;
  /** Beta flags sent as one comma-joined `anthropic-beta` header on every call. */
  betas?: string[];
}

/**
 * Per-request pass-through options, read from `request.providerOptions.anthropic` (all optional):
 * - `betas`: extra beta flags for this request, merged with `AnthropicOptions.betas`;
 * - `clientBetas`: a gateway client's own flags (below);
 * - `tools`: tool definitions sent verbatim after the converted ones (server tools such as
 *   `{type:'web_search_20250305', name:'web_search'}`);
 * - `body`: fields merged into the request body last (e.g. `metadata`, `container`,
 *   `context_management`, `service_tier`).
 */
export interface AnthropicProviderOptions {
  betas?: string[];
  /**
   * Beta flags a gateway client sent in its own `anthropic-beta` header, checked by the gateway
   * (`gateway/betas.ts`): merged with the others by the Anthropic API's adapter only — Claude on
   * Bedrock or Vertex, whose origins are not Anthropic's, never sends them.
   */
  clientBetas?: string[];
  tools?: Array<Record<string, unknown>>;
  body?: Record<string, unknown>;
}

/** Where the key and endpoint come from: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` (SDK convention, without `/v1`). */
export const anthropicCredentials: CredentialSource = {
  apiKeyVariables: providerTable.anthropic.keyVariables,
  apiKeyRequired: true,
  baseURLVariables: providerTable.anthropic.baseURLVariables,
};
