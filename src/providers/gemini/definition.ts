/** The Gemini ProviderDefinition: the pure functions the shared HTTP runtime drives. */
import type { ModelInfo } from '../../core/adapter.ts';
import type { ProviderDefinition } from '../common/definition.ts';
import { prepareCache, preparedCall, releaseCaches } from './cache.ts';
import { capabilitiesFor } from './capabilities.ts';
import { errorRules, parseErrorBody } from './errors.ts';
import { defaultBaseURL } from './options.ts';
import { buildRequest, type RequestSettings } from './request.ts';
import { parseResponse } from './response.ts';
import { createStreamParser } from './stream.ts';
import { estimateInputTokens } from './tokens.ts';
import { buildCountRequest, parseTokenCount } from './count-tokens.ts';
import { isJsonObject } from '../../core/json.ts';

/** Creates the definition; `settings` carries what `createGemini` options change in requests. */
export function createGeminiDefinition(settings: RequestSettings): ProviderDefinition {
  return {
    name: 'gemini',
    protocol: 'gemini',
    baseURL: defaultBaseURL,
    // The key goes in a header, never in the URL (`?key=` would leak into logs and error messages).
    headers: (apiKey): Record<string, string> => (apiKey === undefined ? {} : { 'x-goog-api-key': apiKey }),
    capabilities: capabilitiesFor,
    prepare: (request, context) => prepareCache(request, context, settings),
    endSession: releaseCaches,
    buildRequest: (request, context) => buildRequest(request, context, settings, preparedCall(context)),
    // The served tier (`standard` when a `priority` request was downgraded): in a header only.
    serviceTierHeader: 'x-gemini-service-tier',
    parseResponse,
    createStreamParser,
    parseErrorBody,
    errorRules,
    estimateInputTokens,
    countTokens: { buildRequest: buildCountRequest, parse: parseTokenCount },
    listModels: { path: '/models?pageSize=1000', parse: parseModelList },
  };
}

/** `GET /models` → model infos (`gemini:<name>`), with token limits. */
export function parseModelList(body: unknown): ModelInfo[] {
  const models = isJsonObject(body) && Array.isArray(body.models) ? body.models : [];
  return models.filter(isJsonObject).flatMap((model): ModelInfo[] => {
    if (typeof model.name !== 'string') return [];
    const name = model.name.replace(/^models\//, '');
    const info: ModelInfo = { id: `gemini:${name}`, name };
    if (typeof model.displayName === 'string') info.displayName = model.displayName;
    if (typeof model.inputTokenLimit === 'number') info.contextWindow = model.inputTokenLimit;
    if (typeof model.outputTokenLimit === 'number') info.maxOutputTokens = model.outputTokenLimit;
    return [info];
  });
}
