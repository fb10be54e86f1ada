/** The Bedrock ProviderDefinitions (Converse, and Claude through InvokeModel): pure functions plus per-request signing. */
import type { ModelInfo } from '../../core/adapter.ts';
import type {
  ProviderContext,
  ProviderDefinition,
  ResponseHeaders,
  WireRequest,
} from '../common/definition.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { BedrockAuth, foreignPartition, invalidRegion, missingRegion, type PeerLoader } from './auth.ts';
import { capabilitiesFor, familyOf, invokeCapabilities } from './capabilities.ts';
import { buildCountRequest, parseTokenCount, refusesModel } from './count-tokens.ts';
import { credentialsRefused, errorRules, parseErrorBody } from './errors.ts';
import type { ErrorBody } from '../../core/errors/status-map.ts';
import * as invoke from './invoke.ts';
import { isRegion, partitionOfArn, regionOfArn } from './model-id.ts';
import { type BedrockOptions, bedrockCredentials, endpointOf, partitionOf } from './options.ts';
import { resolveBaseURL } from '../common/options.ts';
import { buildRequest } from './request.ts';
import { parseResponse } from './response.ts';
import { createStreamDecoder, createStreamParser } from './stream.ts';
import { estimateInputTokens } from './tokens.ts';
import { isJsonObject } from '../../core/json.ts';

/**
 * Placeholder region of an adapter without one: its host (`bedrock-runtime.invalid-region…`) is
 * never sent anything (`BedrockAuth.authorize` refuses it); a call names the region of its ARN.
 */
const unknownRegion = 'unknown-region';

/** The header of AWS's id of a request, which AWS support asks for. */
export const requestIdHeader = 'x-amzn-requestid';

/**
 * An error body's message with AWS's request id after it, as the AWS SDK for Java words it
 * (`(Request ID: …)`): an error has no other place for the provider's id. An id of letters, digits
 * and `-` only (the header is the server's text).
 */
export function withRequestId(body: ErrorBody, headers: ResponseHeaders | undefined): ErrorBody {
  const id = headers?.get(requestIdHeader)?.trim();
  if (id === undefined || !/^[A-Za-z0-9-]{1,128}$/.test(id)) return body;
  const note = `(Request ID: ${id})`;
  return {
    ...body,
    message: body.message === undefined || body.message === '' ? note : `${body.message} ${note}`,
  };
}

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
 * where `ListFoundationModels` lives; China's `.amazonaws.com.cn` kept); any other base URL (a proxy, a VPC endpoint, the emulator)
 * as it is.
 */
export function controlPlaneOf(baseURL: string): string {
  return baseURL.replace(
    /^https:\/\/bedrock-runtime\.([a-z0-9-]+)\.(amazonaws\.com(?:\.cn)?)$/,
    'https://bedrock.$1.$2',
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
  // A base URL of the user's (a proxy, a VPC endpoint, the emulator) is where every call goes, as
  // the runtime chooses it: an ARN's region then only signs.
  const chosenBase =
    options.baseURL ?? resolveBaseURL(bedrockCredentials.baseURLVariables, options.env ?? process.env);
  /** The region an AWS runtime or control-plane host names; undefined for any other host. */
  function hostRegion(url: string): string | undefined {
    return /^https?:\/\/bedrock(?:-runtime)?\.([^./]+)\.amazonaws\.com(?:\.cn)?(?:[/:?#]|$)/.exec(url)?.[1];
  }
  /**
   * Without a region of the adapter's, a call goes to its ARN's region, or is refused before it is
   * built: no region at all, or an ARN's that is not a region name (`arn:aws:bedrock:zz:…`).
   */
  function withRegion(wire: WireRequest, context: ProviderContext): WireRequest {
    if (region !== undefined || chosenBase !== undefined) return wire;
    const arnRegion = regionOfArn(context.model);
    if (arnRegion === undefined) throw missingRegion();
    if (!isRegion(arnRegion)) throw invalidRegion(arnRegion);
    const partition = partitionOfArn(context.model);
    if (partition !== partitionOf(arnRegion)) throw foreignPartition(partition ?? '', arnRegion);
    return { ...wire, baseURL: endpointOf(arnRegion) };
  }
  return {
    name: 'bedrock',
    protocol: invoking ? 'bedrock-invoke' : 'bedrock-converse',
    baseURL: endpointOf(region ?? unknownRegion),
    headers: () => ({}),
    // Converse bodies carry no id: AWS's request id is the call's (InvokeModel's body has Claude's own).
    ...(invoking ? {} : { responseIdHeader: requestIdHeader }),
    authorize: (input, refresh) => auth.authorize(input, refresh, hostRegion(input.url)),
    correctClock: (status, headers, signedAt) => auth.clock.correct(status, headers, signedAt),
    capabilities: invoking ? invokeCapabilities : capabilitiesFor,
    buildRequest: (request: CanonicalRequest, context) =>
      withRegion(invoking ? invoke.buildRequest(request, context) : buildRequest(request, context), context),
    // Invoke sends the Anthropic body: a router skips another vendor's model instead of failing on it.
    ...(invoking ? { unservedReason: (model: string) => invoke.invokeRefusal(model) } : {}),
    parseResponse: invoking ? invoke.parseResponse : parseResponse,
    createStreamParser: invoking ? invoke.createStreamParser : createStreamParser,
    createStreamDecoder: (parser, maxEventBytes) => createStreamDecoder(parser, maxEventBytes),
    parseErrorBody: (text, headers) => withRequestId(parseErrorBody(text, headers), headers),
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
