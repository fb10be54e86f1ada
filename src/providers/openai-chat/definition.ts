/** Assembles the Chat Completions ProviderDefinition for one host from its name, quirks and options. */
import type { Capabilities } from '../../core/capabilities.ts';
import type { ModelCatalog } from '../../core/catalog.ts';
import type { ProviderDefinition } from '../common/definition.ts';
import { baseURLVariableFor, type CredentialSource } from '../common/options.ts';
import { parseModelList } from '../openai/models.ts';
import { type CapabilityOverrides, createCapabilityResolver } from './capabilities.ts';
import { errorRules, parseErrorBody } from './errors.ts';
import type { ChatQuirks } from './quirks.ts';
import { buildRequest } from './request.ts';
import { parseResponse } from './response.ts';
import { createStreamParser } from './stream.ts';
import { estimateInputTokens } from './tokens.ts';

/** Everything that makes one Chat Completions host. */
export interface ChatHostSettings extends CapabilityOverrides {
  // `capabilities` / `models` here are the HOST's table (a JSON host definition); the user's
  // overrides are applied by the shared runtime (AdapterOptions), after it.
  /** Adapter name: the `provider` of canonical model ids (`openai`, `groq`, …). */
  name: string;
  quirks: ChatQuirks;
  /** Static headers added to every call (e.g. `OpenAI-Organization`). */
  headers?: Record<string, string>;
  /** Send `strict: true` on function tools where the host takes it. Default false. */
  strictTools?: boolean;
  /** The host's models.dev rows (`src/providers/catalog/`), when it has them. */
  catalog?: ModelCatalog;
}

/**
 * Where a host's key and endpoint come from: its `apiKeyEnv` variable, and the matching
 * `…_BASE_URL` variable (`OPENAI_BASE_URL`, `GROQ_BASE_URL`, …).
 */
export function chatCredentials(quirks: ChatQuirks): CredentialSource {
  return {
    apiKeyVariables: quirks.apiKeyEnv === undefined ? [] : [quirks.apiKeyEnv],
    apiKeyRequired: quirks.apiKeyRequired,
    baseURLVariables: baseURLVariableFor(quirks.apiKeyEnv),
  };
}

/** The ProviderDefinition of one host: the ONE Chat Completions implementation, parameterized by quirks. */
export function createChatDefinition(settings: ChatHostSettings): ProviderDefinition {
  const { name, quirks } = settings;
  const capabilities: (model: string) => Capabilities = createCapabilityResolver(quirks, settings);
  const requestSettings = { quirks, strictTools: settings.strictTools ?? false };
  return {
    name,
    protocol: 'openai-chat',
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
