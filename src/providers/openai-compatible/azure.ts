/** Azure OpenAI Chat Completions: the OpenAI row with Azure's URLs and `api-key` header, as quirks. */
import type { Adapter } from '../../core/adapter.ts';
import { type ChatQuirks, openaiQuirks } from '../openai-chat/quirks.ts';
import { type AzureEndpointOptions, azureApiKeyEnv, azureBaseURL } from '../openai/azure.ts';
import { createOpenAICompatible, type OpenAICompatibleConfig, type OpenAICompatibleOptions } from './host.ts';

/** Options of `createAzureOpenAI`. */
export interface AzureOpenAIOptions extends Omit<OpenAICompatibleOptions, 'baseURL'>, AzureEndpointOptions {
  /** API key; default: `AZURE_OPENAI_API_KEY`. */
  apiKey?: string;
  /**
   * Call the deployment-scoped URLs (`/openai/deployments/{deployment}/chat/completions?api-version=…`)
   * instead of the v1 surface (`/openai/v1/chat/completions`). The model name is the deployment name.
   */
  deploymentUrls?: boolean;
}

/** The quirks of an Azure OpenAI resource: OpenAI's models and rules, Azure's URL and auth. */
export function azureChatQuirks(options: AzureOpenAIOptions = {}): ChatQuirks {
  const deployments = options.deploymentUrls === true;
  const quirks: ChatQuirks = {
    ...openaiQuirks,
    baseURL: azureBaseURL(options, deployments ? 'deployments' : 'v1'),
    apiKeyEnv: azureApiKeyEnv,
    authHeader: 'api-key',
    chatPath: deployments ? '/deployments/{model}/chat/completions' : '/chat/completions',
  };
  const apiVersion = options.apiVersion ?? (deployments ? '2024-10-21' : undefined);
  if (apiVersion !== undefined) quirks.apiVersion = apiVersion;
  return quirks;
}

/** Where an Azure OpenAI resource's Chat Completions live: {@link azurePreset}'s argument. */
export interface AzureChatEndpoint extends AzureEndpointOptions {
  /** Call the deployment-scoped URLs instead of the v1 surface (see `AzureOpenAIOptions`). */
  deploymentUrls?: boolean;
}

/**
 * The preset of an Azure OpenAI resource over Chat Completions (adapter name `azure`; the model is
 * the deployment name, `azure:my-gpt-4o`; the key in the `api-key` header) — the host-shortcut style
 * of every OpenAI host: `createOpenAICompatible(azurePreset({ resourceName }), options)`, as
 * `createOpenAICompatible(presets.groq, options)`.
 *
 * @example
 * const azure = createOpenAICompatible(azurePreset({ resourceName: 'my-resource' }), { apiKey });
 * const legacy = createOpenAICompatible(azurePreset({ resourceName: 'my-resource', deploymentUrls: true }));
 */
export function azurePreset(endpoint: AzureChatEndpoint = {}): OpenAICompatibleConfig {
  return { name: 'azure', quirks: azureChatQuirks(endpoint) };
}

/** @deprecated Use `createOpenAICompatible(azurePreset({ resourceName, deploymentUrls, apiVersion }), options)`. */
export function createAzureOpenAI(options: AzureOpenAIOptions = {}): Adapter {
  const { resourceName, baseURL, apiVersion, deploymentUrls, ...rest } = options;
  const endpoint = { resourceName, baseURL, apiVersion, deploymentUrls, env: rest.env };
  return createOpenAICompatible(azurePreset(endpoint), rest);
}
