/** The Anthropic Messages provider definition: the pure functions the shared HTTP runtime calls. */
import type { ModelInfo } from '../../core/adapter.ts';
import type { Capabilities } from '../../core/capabilities.ts';
import type { ProviderDefinition } from '../common/definition.ts';
import type { WireModel } from './api.ts';
import { anthropicCapabilities } from './capabilities.ts';
import { errorRules, parseErrorBody } from './errors.ts';
import { defaultAnthropicVersion } from './options.ts';
import { buildRequest } from './request.ts';
import { parseResponse } from './response.ts';
import { createStreamParser } from './stream.ts';
import { estimateInputTokens } from './tokens.ts';
import { buildCountRequest, parseTokenCount } from './count-tokens.ts';
import { providerTable } from '../common/provider-table.ts';

/** Instance settings baked into a definition. */
export interface AnthropicDefinitionSettings {
  /** `anthropic-version`; default `2023-06-01`. */
  version?: string;
  /** Beta flags for the `anthropic-beta` header. */
  betas?: readonly string[];
}

/** `GET /models` → model infos (context window and output limit when the API reports them). */
export function parseModelList(body: unknown): ModelInfo[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return [];
  return data
    .filter((model): model is WireModel => typeof (model as WireModel)?.id === 'string')
    .map((model) => {
      const info: ModelInfo = { id: `anthropic:${model.id}`, name: model.id };
      if (model.display_name !== undefined) info.displayName = model.display_name;
      if (typeof model.max_input_tokens === 'number') info.contextWindow = model.max_input_tokens;
      if (typeof model.max_tokens === 'number') info.maxOutputTokens = model.max_tokens;
      return info;
    });
}

const widened = new Map<string, Capabilities>();

/**
 * The capabilities of an adapter whose every call sends the `context-1m-*` beta flag
 * (`AnthropicOptions.betas`): a model it opens a larger window on has that window.
 */
function longContextCapabilities(model: string): Capabilities {
  const declared = anthropicCapabilities(model);
  const long = declared.longContextWindow;
  if (long === undefined || long <= declared.contextWindow) return declared;
  let capabilities = widened.get(model);
  if (capabilities === undefined) {
    capabilities = { ...declared, contextWindow: long };
    if (widened.size < 256) widened.set(model, capabilities);
  }
  return capabilities;
}

/** Creates the provider definition for one adapter instance. */
export function createAnthropicDefinition(settings: AnthropicDefinitionSettings = {}): ProviderDefinition {
  const version = settings.version ?? defaultAnthropicVersion;
  const betas = settings.betas ?? [];
  return {
    name: 'anthropic',
    protocol: 'anthropic-messages',
    baseURL: providerTable.anthropic.baseURL,
    headers(apiKey) {
      const headers: Record<string, string> = { 'anthropic-version': version };
      if (apiKey !== undefined) headers['x-api-key'] = apiKey;
      if (betas.length > 0) headers['anthropic-beta'] = betas.join(',');
      return headers;
    },
    capabilities: betas.some((flag) => flag.startsWith('context-1m-'))
      ? longContextCapabilities
      : anthropicCapabilities,
    buildRequest: (request, context) => buildRequest(request, context, { betas, clientBetas: true }),
    parseResponse,
    createStreamParser,
    parseErrorBody,
    errorRules,
    estimateInputTokens,
    countTokens: { buildRequest: buildCountRequest, parse: parseTokenCount },
    listModels: { path: '/models', parse: parseModelList },
  };
}

/** The definition with default settings (version `2023-06-01`, no betas). */
export const anthropicDefinition: ProviderDefinition = createAnthropicDefinition();
