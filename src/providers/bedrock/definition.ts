/** The Bedrock ProviderDefinitions (Converse, and Claude through InvokeModel): pure functions plus per-request signing. */
import type { ModelInfo } from '../../core/adapter.ts';
import type { ProviderDefinition, WireRequest } from '../common/definition.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { ProviderContext } from '../common/definition.ts';
import { BedrockAuth, type PeerLoader } from './auth.ts';
import { capabilitiesFor, familyOf, invokeCapabilities } from './capabilities.ts';
import { buildCountRequest, parseTokenCount, refusesModel } from './count-tokens.ts';
import { credentialsRefused, errorRules, parseErrorBody } from './errors.ts';
import * as invoke from './invoke.ts';
import { regionOfArn } from './model-id.ts';
import { type BedrockOptions, endpointOf } from './options.ts';
import { buildRequest } from './request.ts';
import { parseResponse } from './response.ts';
import { createStreamDecoder, createStreamParser } from './stream.ts';
import { estimateInputTokens } from './tokens.ts';
import { isJsonObject } from '../../core/json.ts';

/** Placeholder host of an adapter without a region: a call names the region of its ARN, or fails. */
const unknownRegion = 'unknown-region';

/** `GET /foundation-models` (the control-plane host) → model infos. */
export function parseModelList(body: unknown): ModelInfo[] {
  const summaries = isJsonObject(body) && Array.isArray(body.modelSummaries) ? body.modelSummaries : [];
  return summaries.filter(isJsonObject).flatMap((model): ModelInfo[] => {
    if (typeof model.modelId !== 'string') return [];
    const info: ModelInfo = { id: `bedrock:${model.modelId}`, name: model.modelId };
    if (typeof model.modelName === 'string') info.displayName = model.modelName;
    return [info];
  });
}

/**
 * The control-plane host of an AWS runtime host (`bedrock-runtime.{region}` → `bedrock.{region}`,
 * where `ListFoundationModels` lives); any other base URL (a proxy, a VPC endpoint, the emulator)
 * as it is.
 */
export function controlPlaneOf(baseURL: string): string {
  return baseURL.replace(
    /^https:\/\/bedrock-runtime\.([a-z0-9-]+)\.amazonaws\.com$/,
    'https://bedrock.$1.amazonaws.com',
  );
}

/**
 * Creates the definition for one adapter instance. The region comes from the options or the
 * environment at creation; a call whose model is an ARN of another region goes to that region.
 */
export function createBedrockDefinition(options: BedrockOptions, loadPeer?: PeerLoader): ProviderDefinition {
  const auth = new BedrockAuth(options, loadPeer);
  const region = auth.region();
  const invoking = options.protocol === 'invoke';
  /** The region of one request: the adapter's, else the ARN's (the signing scope must match the host). */
  function regionFor(url: string): string {
    const host = /^https?:\/\/bedrock(?:-runtime)?\.([^./]+)\.amazonaws\.com/.exec(url)?.[1];
    return host ?? region ?? unknownRegion;
  }
  function withRegion(wire: WireRequest, context: ProviderContext): WireRequest {
    const arnRegion = region === undefined ? regionOfArn(context.model) : undefined;
    return arnRegion === undefined ? wire : { ...wire, baseURL: endpointOf(arnRegion) };
  }
  return {
    name: 'bedrock',
    protocol: invoking ? 'bedrock-invoke' : 'bedrock-converse',
    baseURL: endpointOf(region ?? unknownRegion),
    headers: () => ({}),
    authorize: (input, refresh) => auth.authorize(input, refresh, regionFor(input.url)),
    correctClock: (status, headers, signedAt) => auth.clock.correct(status, headers, signedAt),
    capabilities: invoking ? invokeCapabilities : capabilitiesFor,
    buildRequest: (request: CanonicalRequest, context) =>
      withRegion(invoking ? invoke.buildRequest(request, context) : buildRequest(request, context), context),
    parseResponse: invoking ? invoke.parseResponse : parseResponse,
    createStreamParser: invoking ? invoke.createStreamParser : createStreamParser,
    createStreamDecoder: (parser, maxEventBytes) => createStreamDecoder(parser, maxEventBytes),
    parseErrorBody,
    credentialsRefused,
    errorRules,
    estimateInputTokens,
    countTokens: { buildRequest: buildCountRequest, parse: parseTokenCount, refusesModel },
    // Claude, Nova, Llama, DeepSeek, … behind one adapter: each family's parts go back to it alone.
    // Before families were recorded only Claude signed reasoning here: a bare `bedrock` part is Claude's.
    families: { of: familyOf, bare: 'anthropic' },
    listModels: { path: '/foundation-models', parse: parseModelList, baseURL: controlPlaneOf },
  };
}
