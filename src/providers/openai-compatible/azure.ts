/** Azure OpenAI Chat Completions: the OpenAI row with Azure's URLs and `api-key` header, as quirks. */
import type { Adapter } from '../../core/adapter.ts';
import { type ChatQuirks, openaiQuirks } from '../openai-chat/quirks.ts';
import { type AzureEndpointOptions, azureApiKeyEnv, azureBaseURL } from '../openai/azure.ts';
import { createOpenAICompatible, type OpenAICompatibleOptions } from './host.ts';

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

/**
 * Azure OpenAI over Chat Completions (adapter name `azure`; the model is the deployment name,
 * `azure:my-gpt-4o`). The key goes in the `api-key` header.
 *
 * @example
 * const azure = createAzureOpenAI({ resourceName: 'my-resource', apiKey: process.env.AZURE_OPENAI_API_KEY });
 * const legacy = createAzureOpenAI({ resourceName: 'my-resource', deploymentUrls: true, apiVersion: '2024-10-21' });
 */
export function createAzureOpenAI(options: AzureOpenAIOptions = {}): Adapter {
  const {
    resourceName: _resource,
    baseURL: _baseURL,
    apiVersion: _version,
    deploymentUrls: _urls,
    ...rest
  } = options;
  return createOpenAICompatible({ name: 'azure', quirks: azureChatQuirks(options) }, rest);
}
