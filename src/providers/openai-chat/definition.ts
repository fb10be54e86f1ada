/** Assembles the Chat Completions ProviderDefinition for one host from its name, quirks and options. */
import type { ModelInfo } from '../../core/adapter.ts';
import type { Capabilities } from '../../core/capabilities.ts';
import { AuthError } from '../../core/errors/auth-error.ts';
import type { ProviderDefinition } from '../shared/definition.ts';
import { type CapabilityOverrides, createCapabilityResolver } from './capabilities.ts';
import { errorRules, parseErrorBody } from './errors.ts';
import type { ChatQuirks } from './quirks.ts';
import { buildRequest } from './request.ts';
import { parseResponse } from './response.ts';
import { createStreamParser } from './stream.ts';
import { estimateInputTokens } from './tokens.ts';

/** Everything that makes one Chat Completions host. */
export interface ChatHostSettings extends CapabilityOverrides {
  /** Adapter name: the `provider` of canonical model ids (`openai`, `groq`, …). */
  name: string;
  quirks: ChatQuirks;
  /** Static headers added to every call (e.g. `OpenAI-Organization`). */
  headers?: Record<string, string>;
  /** Send `strict: true` on function tools where the host takes it. Default false. */
  strictTools?: boolean;
}

/** Parses a `GET /models` list (`{data: [{id}]}`) into canonical model infos. */
export function parseModelList(body: unknown, provider: string): ModelInfo[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return [];
  const models: ModelInfo[] = [];
  for (const entry of data) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && id !== '') models.push({ id: `${provider}:${id}`, name: id });
  }
  return models;
}

/** Resolves the API key: the argument, else the host's environment variable. */
export function resolveApiKey(apiKey: string | undefined, environmentVariable: string | undefined) {
  if (apiKey !== undefined && apiKey !== '') return apiKey;
  if (environmentVariable === undefined) return undefined;
  const fromEnvironment = process.env[environmentVariable];
  return fromEnvironment === undefined || fromEnvironment === '' ? undefined : fromEnvironment;
}

/**
 * Fails fast (contract §8.2: a host whose key is missing does not register) with an `AuthError`
 * (`missing_api_key`) naming the variable to set, never any key.
 */
export function assertApiKey(name: string, quirks: ChatQuirks, apiKey: string | undefined): void {
  if (apiKey !== undefined || !quirks.apiKeyRequired) return;
  const hint = quirks.apiKeyEnv === undefined ? '' : ` or set ${quirks.apiKeyEnv}`;
  throw new AuthError({
    message: `${name}: no API key: pass apiKey${hint}`,
    provider: name,
    providerCode: 'missing_api_key',
  });
}

/** The ProviderDefinition of one host: the ONE Chat Completions implementation, parameterized by quirks. */
export function createChatDefinition(settings: ChatHostSettings): ProviderDefinition {
  const { name, quirks } = settings;
  const capabilities: (model: string) => Capabilities = createCapabilityResolver(quirks, settings);
  const requestSettings = { quirks, strictTools: settings.strictTools ?? false, capabilities };
  return {
    name,
    api: 'openai-chat',
    baseURL: quirks.baseURL,
    headers(apiKey) {
      const headers: Record<string, string> = { ...settings.headers };
      if (apiKey !== undefined && quirks.authHeader === 'api-key') headers['api-key'] = apiKey;
      else if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
      return headers;
    },
    capabilities,
    buildRequest: (request, context) => buildRequest(request, context, requestSettings),
    parseResponse: (body, context, builder) => parseResponse(body, context, builder, quirks),
    createStreamParser: (context, builder) => createStreamParser(context, builder, quirks),
    parseErrorBody,
    errorRules,
    estimateInputTokens,
    listModels: { path: '/models', parse: (body) => parseModelList(body, name) },
  };
}
