/** Assembles the Responses ProviderDefinition for one host from its settings. */
import type { Capabilities } from '../../core/capabilities.ts';
import type { CapabilityOverrides } from '../../core/capabilities.ts';
import { parseModelList } from '../openai/models.ts';
import type { ProviderDefinition } from '../common/definition.ts';
import { type HostCapabilities, createCapabilityResolver } from './capabilities.ts';
import { errorRules, parseErrorBody } from './errors.ts';
import type { ResponsesStateMode } from './options.ts';
import { buildRequest } from './request.ts';
import { parseResponse } from './response.ts';
import { createStreamParser } from './stream.ts';
import { estimateInputTokens } from './tokens.ts';
import { buildCountRequest, parseTokenCount } from './count-tokens.ts';

/** Everything that makes one Responses host. */
export interface ResponsesHostSettings extends CapabilityOverrides {
  /** Adapter name: the `provider` of canonical model ids (`openai`, `xai`, `azure`, …). */
  name: string;
  baseURL: string;
  /** The endpoint path (default `/responses`; Azure adds `?api-version=…`). */
  path?: string;
  /** The models listing path (default `/models`). */
  modelsPath?: string;
  /** Auth headers for a key (default `Authorization: Bearer`). */
  auth?: (apiKey: string) => Record<string, string>;
  /** Static headers added to every call (e.g. `OpenAI-Organization`). */
  headers?: Record<string, string>;
  host: HostCapabilities;
  state?: ResponsesStateMode;
  strictTools?: boolean;
  /** Whether the host takes `reasoning.summary` and `include: ["reasoning.encrypted_content"]`. Default true. */
  reasoningReplay?: boolean;
  /** Model globs that take `reasoning.effort` (default: every model). */
  effortModels?: string[];
  /** Whether the host takes `custom` (freeform) tools. Default false. */
  customTools?: boolean;
}

/** The ProviderDefinition of one Responses host. */
export function createResponsesDefinition(settings: ResponsesHostSettings): ProviderDefinition {
  const { name } = settings;
  const capabilities: (model: string) => Capabilities = createCapabilityResolver(settings.host);
  const requestSettings = {
    strictTools: settings.strictTools ?? false,
    state: settings.state ?? 'stateless',
    path: settings.path ?? '/responses',
    reasoningReplay: settings.reasoningReplay ?? true,
    effortModels: settings.effortModels ?? ['*'],
    customTools: settings.customTools ?? false,
  };
  const auth = settings.auth ?? ((apiKey: string) => ({ authorization: `Bearer ${apiKey}` }));
  return {
    name,
    protocol: 'openai-responses',
    baseURL: settings.baseURL,
    headers(apiKey) {
      return { ...settings.headers, ...(apiKey === undefined ? {} : auth(apiKey)) };
    },
    capabilities,
    buildRequest: (request, context) => buildRequest(request, context, requestSettings),
    parseResponse,
    createStreamParser,
    parseErrorBody,
    errorRules,
    estimateInputTokens,
    countTokens: { buildRequest: buildCountRequest, parse: parseTokenCount },
    listModels: { path: settings.modelsPath ?? '/models', parse: (body) => parseModelList(body, name) },
  };
}
