/**
 * `switchyard-ai/openai-responses`: the OpenAI Responses API adapter (`POST {baseURL}/responses`), for
 * OpenAI, xAI, Azure OpenAI and Open Responses servers. Stateless by default; stateful on request.
 */
import type { Adapter } from '../../core/adapter.ts';
import {
  type AzureEndpointOptions,
  azureApiKeyEnv,
  azureAuthHeaders,
  azureBaseURL,
} from '../openai/azure.ts';
import { accountHeaders } from '../openai/headers.ts';
import { createHttpAdapter } from '../common/http-adapter.ts';
import { baseURLVariableFor } from '../common/options.ts';
import { createResponsesDefinition } from './definition.ts';
import type { OpenAIResponsesOptions } from './options.ts';
import { type ResponsesPreset, type ResponsesPresetName, responsesPresets } from './presets.ts';

export type { HostCapabilities } from './capabilities.ts';
export type { OpenAIResponsesOptions, ResponsesStateMode } from './options.ts';
export { type ResponsesPreset, type ResponsesPresetName, responsesPresets } from './presets.ts';

/**
 * Creates a Responses adapter for a preset row (`responsesPresets.xai`, …) or a row of your own.
 * Never throws for a missing key: a call without one fails before HTTP with `AuthError`
 * `not_configured`. The base URL comes from `options.baseURL`, else `OPENAI_BASE_URL` /
 * `XAI_BASE_URL` (the variable matching `apiKeyEnv`), else the preset's.
 */
export function createResponsesHost(preset: ResponsesPreset, options: OpenAIResponsesOptions = {}): Adapter {
  const definition = createResponsesDefinition({
    name: preset.name,
    baseURL: preset.baseURL,
    host: preset.host,
    headers: accountHeaders(options),
    state: options.state,
    strictTools: options.strictTools,
    reasoningReplay: preset.reasoningReplay,
    ...(preset.path === undefined ? {} : { path: preset.path }),
    ...(preset.effortModels === undefined ? {} : { effortModels: preset.effortModels }),
    ...(preset.customTools === undefined ? {} : { customTools: preset.customTools }),
    ...(preset.authHeader === 'api-key' ? { auth: azureAuthHeaders } : {}),
  });
  return createHttpAdapter(definition, {
    ...options,
    credentials: {
      apiKeyVariables: preset.apiKeyEnv === undefined ? [] : [preset.apiKeyEnv],
      apiKeyRequired: preset.apiKeyRequired,
      baseURLVariables: baseURLVariableFor(preset.apiKeyEnv),
    },
  });
}

/**
 * Creates a Responses adapter (protocol `openai-responses`): OpenAI's by default (name `openai`, key
 * from `apiKey`, else `OPENAI_API_KEY`), or a host's from its preset — the one host-shortcut style of
 * both OpenAI entries (`createOpenAICompatible(presets.groq, …)` on Chat Completions):
 * `createOpenAIResponses(responsesPresets.xai, options)`, `createOpenAIResponses(azureResponsesPreset({
 * resourceName }), options)`, `createOpenAIResponses({ ...responsesPresets['open-responses'], name:
 * 'lmstudio' }, options)`. Use it instead of `createOpenAI` (Chat Completions) for OpenAI's newer
 * features: reasoning carried between turns, built-in tools, server-side state.
 *
 * @example
 * const openai = createOpenAIResponses({ apiKey: process.env.OPENAI_API_KEY });
 * const response = await openai.complete({ model: 'openai:gpt-5-mini', transcript, maxOutputTokens: 1024 });
 * // Server-side state: only new items are sent while the transcript extends what the server holds.
 * const stateful = createOpenAIResponses({ state: 'previous-response' });
 * const xai = createOpenAIResponses(responsesPresets.xai);
 */
export function createOpenAIResponses(options?: OpenAIResponsesOptions): Adapter;
export function createOpenAIResponses(preset: ResponsesPreset, options?: OpenAIResponsesOptions): Adapter;
export function createOpenAIResponses(
  first: ResponsesPreset | OpenAIResponsesOptions = {},
  options: OpenAIResponsesOptions = {},
): Adapter {
  return isPreset(first)
    ? createResponsesHost(first, options)
    : createResponsesHost(responsesPresets.openai, first);
}

function isPreset(value: ResponsesPreset | OpenAIResponsesOptions): value is ResponsesPreset {
  return typeof value === 'object' && value !== null && 'reasoningReplay' in value && 'host' in value;
}

/** @deprecated Use `createOpenAIResponses(responsesPresets.xai, options)`. */
export function createXaiResponses(options: OpenAIResponsesOptions = {}): Adapter {
  return createResponsesHost(responsesPresets.xai, options);
}

/**
 * @deprecated Use `createOpenAIResponses(responsesPresets['open-responses'], options)` (a server implementing
 * the Open Responses specification, default `http://127.0.0.1:1234/v1`, no key needed).
 */
export function createOpenResponses(options: OpenAIResponsesOptions & { name?: string } = {}): Adapter {
  const preset = { ...responsesPresets['open-responses'], name: options.name ?? 'open-responses' };
  return createResponsesHost(preset, options);
}

/** Looks a preset up by name. */
export function responsesPreset(name: ResponsesPresetName): ResponsesPreset {
  return responsesPresets[name];
}

/** Options of `createAzureOpenAIResponses`. */
export interface AzureOpenAIResponsesOptions
  extends Omit<OpenAIResponsesOptions, 'baseURL'>, AzureEndpointOptions {}

/**
 * The preset of an Azure OpenAI resource over the Responses API (adapter name `azure`): `POST
 * https://{resource}.openai.azure.com/openai/v1/responses` (plus `?api-version=` when given), the key
 * in the `api-key` header (default `AZURE_OPENAI_API_KEY`), the deployment name as the model
 * (`azure:my-gpt-5-mini`). Model rows are OpenAI's.
 *
 * @example
 * const azure = createOpenAIResponses(azureResponsesPreset({ resourceName: 'my-resource' }));
 */
export function azureResponsesPreset(endpoint: AzureEndpointOptions = {}): ResponsesPreset {
  const { apiVersion } = endpoint;
  return {
    ...responsesPresets.openai,
    name: 'azure',
    baseURL: azureBaseURL(endpoint, 'v1'),
    apiKeyEnv: azureApiKeyEnv,
    authHeader: 'api-key',
    path:
      apiVersion === undefined ? '/responses' : `/responses?api-version=${encodeURIComponent(apiVersion)}`,
  };
}

/** @deprecated Use `createOpenAIResponses(azureResponsesPreset({ resourceName, apiVersion }), options)`. */
export function createAzureOpenAIResponses(options: AzureOpenAIResponsesOptions = {}): Adapter {
  const { resourceName, baseURL, apiVersion, ...rest } = options;
  return createResponsesHost(
    azureResponsesPreset({ resourceName, baseURL, apiVersion, env: rest.env }),
    rest,
  );
}
