/** Azure OpenAI endpoints, shared by the Chat Completions and Responses adapters. */

/** Where an Azure OpenAI resource lives and which API surface to call. */
export interface AzureEndpointOptions {
  /** The resource name: `https://{resourceName}.openai.azure.com`. Default: `AZURE_OPENAI_RESOURCE_NAME`. */
  resourceName?: string;
  /** A full base URL instead (a proxy, a custom domain); ends before `/chat/completions` or `/responses`. */
  baseURL?: string;
  /**
   * Sent as `?api-version=`. The v1 surface (`/openai/v1`, the default) needs none; deployment URLs
   * default to `2024-10-21`.
   */
  apiVersion?: string;
  /**
   * Where `AZURE_OPENAI_RESOURCE_NAME` is read when `resourceName` is not given, as the adapter's own
   * `env` option reads the key (default `process.env`).
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The API key variable Azure adapters read. */
export const azureApiKeyEnv = 'AZURE_OPENAI_API_KEY';

/**
 * The base URL of a resource: `options.baseURL`, else `https://{resource}.openai.azure.com/openai`
 * plus `/v1` for the v1 surface. Throws a `TypeError` when neither a base URL nor a resource name is known.
 */
export function azureBaseURL(options: AzureEndpointOptions, surface: 'v1' | 'deployments'): string {
  if (options.baseURL !== undefined && options.baseURL !== '') return options.baseURL;
  const resource = options.resourceName ?? (options.env ?? process.env).AZURE_OPENAI_RESOURCE_NAME;
  if (resource === undefined || resource === '' || !/^[a-z0-9-]+$/i.test(resource)) {
    throw new TypeError(
      'azure: pass resourceName (letters, digits, dashes) or baseURL, or set AZURE_OPENAI_RESOURCE_NAME',
    );
  }
  return `https://${resource}.openai.azure.com/openai${surface === 'v1' ? '/v1' : ''}`;
}

/** Azure sends the key as `api-key`, not as a bearer token. */
export function azureAuthHeaders(apiKey: string): Record<string, string> {
  return { 'api-key': apiKey };
}
