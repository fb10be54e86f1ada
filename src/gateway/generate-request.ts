/**
 * A generation request's way in (`generate.ts`): its body read and decoded, the model checked
 * against the key, the transcript completed from the state store (a stored Responses conversation,
 * referenced items, provider artifacts) and the key's limits and budget admitted.
 */
import { yieldFullTurn } from '../transport/cooperative.ts';
import { inboundCodecs } from '../codecs/index.ts';
import { checkToolPairs } from '../codecs/common.ts';
import { RequestFieldError, shown } from '../codecs/fields.ts';
import { checkMediaUris } from './media-uris.ts';
import { withStoredResponses } from './stored-responses.ts';
import { isAdapterError } from '../core/errors/guards.ts';
import { unknownModel } from '../registry/resolve.ts';
import { isCatalogued } from '../registry/model-facts.ts';
import { routeDisabledThinkingEffort } from '../codecs/anthropic-messages/request.ts';
import { isNativeRoute, leaveOutProviderTools, warnLeftOut } from './left-out.ts';
import { taggedOpaque } from '../codecs/opaque.ts';
import type { DecodedRequest } from '../codecs/types.ts';
import type { RequestId } from '../core/ids.ts';
import {
  adoptUntaggedArtifacts,
  adoptUntaggedItems,
  restoreArtifacts,
  scopedCacheKey,
  scopeOf,
} from './artifacts.ts';
import { restoreTextSignatures } from './text-signatures.ts';
import { maxArtifactReads, type ReadBudget } from './store.ts';
import { GatewayError } from './errors.ts';
import { allowsModel, type GatewayKey, modelForbidden, namesOf } from './keys.ts';
import { admitCall, isPriced, type KeyQuota } from './quota.ts';
import type { ModelPrices } from '../pricing/types.ts';
import { headerOf, largeBodyBytes } from './inbound.ts';
import { applyClientBetas } from './betas.ts';
import { HeldBody, readHeldJson } from './body-hold.ts';
import type { GatewayState } from './state.ts';
import { renameTools } from './tool-names.ts';
import type { GenerationCall, Served } from './generation-call.ts';

/**
 * Puts a stored Responses transcript in front (`previous_response_id`), referenced items in their
 * places (`item_reference`) and stored artifacts back; undefined when there is nothing to look up
 * (no store round trip, no await).
 */
function prepareTranscript(
  state: GatewayState,
  decoded: DecodedRequest,
  scope: string,
  held: HeldBody,
  toGemini: boolean,
  connection: GenerationCall['connection'],
): Promise<void> | undefined {
  const { transcript } = decoded.request;
  const restore = () => {
    // One bound on the request's reads (`maxArtifactReads`): the text signatures' share taken first
    // (at most `maxTextSignatureReads`), the calls' entries the rest. Text signatures only matter
    // to Gemini: no lookups on a route to any other provider.
    const reads: ReadBudget = { left: maxArtifactReads };
    const texts = toGemini ? restoreTextSignatures(transcript, state.store, scope, reads) : undefined;
    const artifacts = restoreArtifacts(transcript, state.store, scope, reads);
    if (artifacts === undefined || texts === undefined) return artifacts ?? texts;
    return Promise.all([artifacts, texts]).then(() => undefined);
  };
  const stored = withStoredResponses(state.store, decoded, scope, held, connection);
  return stored === undefined ? restore() : stored.then(restore);
}

/** The key's limits and budget before dispatch (one state-store step); throws the 429/402/403/503 to answer. */
export async function admit(
  state: GatewayState,
  key: GatewayKey & KeyQuota,
  decoded: DecodedRequest,
  served: Served,
): Promise<void> {
  const started = performance.now();
  let modelId: string | undefined;
  let maxOutputTokens = 0;
  // The most output a candidate can be sent: a routed model's limit (an alias's target, a fallback,
  // the model a client of another protocol named), unbounded (undefined) for the model named
  // itself in its own protocol or an unknown limit.
  const bound = (limit: number) => (limit > 0 ? limit : undefined);
  let outputCap: number | undefined;
  const fallbackIds: string[] = [];
  // With a budget, each candidate's prices as the front door will cost it (`pricesOf`), by id.
  // (Without a budget nothing is priced before the call: no await on every request's path.)
  const budgeted = key.budget !== undefined;
  const pricing: Record<string, ModelPrices> = {};
  const priceOf = async (name: string, id: string) => {
    const prices = await state.switchyard.pricesOf(name);
    if (prices !== undefined) pricing[id] = prices;
  };
  try {
    const model = state.switchyard.resolve(decoded.model);
    modelId = model.id;
    if (budgeted) await priceOf(decoded.model, model.id);
    maxOutputTokens = model.facts.maxOutputTokens;
    outputCap =
      model.matchedBy === 'alias' || served.foreignCap === true ? bound(maxOutputTokens) : undefined;
    for (const name of model.fallbacks) {
      try {
        const fallback = state.switchyard.resolve(name);
        if (budgeted) await priceOf(name, fallback.id);
        // Only the fallbacks the key may reach: by any of its names, as routing decides; with a
        // budget, only priced ones (routing is kept to them: `Served.budgetFallbacks`).
        const reachable =
          allowsModel(key, [name, fallback.id, ...fallback.aliases], fallback.id) &&
          (!budgeted || isPriced(fallback.id, pricing, state.switchyard.prices));
        if (reachable) {
          fallbackIds.push(fallback.id);
          const limit = bound(fallback.facts.maxOutputTokens);
          outputCap = outputCap === undefined || limit === undefined ? undefined : Math.max(outputCap, limit);
        }
      } catch {
        // A name that does not resolve: routing refuses it; nothing to price.
      }
    }
  } catch {
    // Unknown names fail in routing; the call is still counted against the key's rate.
  }
  if (key.budget !== undefined) served.budgetFallbacks = new Set(fallbackIds);
  served.reservation = await admitCall(
    state.shared,
    key,
    { request: decoded.request, modelId, fallbackIds, pricing, maxOutputTokens, outputCap },
    state.switchyard.prices,
  );
  served.ownMs += performance.now() - started;
}

export async function decode(
  state: GatewayState,
  call: GenerationCall,
  served: Served,
  cancel?: AbortSignal,
): Promise<DecodedRequest> {
  // A model named in the path (Gemini's) is checked before the body is read: a key's refusal costs
  // neither the client's upload nor the gateway's parse of it (the body's decoding checks it again).
  const pathModel = call.decodeContext?.model;
  if (pathModel !== undefined && pathModel !== '') {
    served.model = pathModel;
    permittedModel(state, call.key, pathModel);
  }
  // A WebSocket message arrived whole; an HTTP body is held as its bytes arrive.
  if ('body' in call) served.held.take(call.bodyBytes ?? 0);
  const body =
    'body' in call ? call.body : await readHeldJson(state, call.request, call.incoming, served.held, cancel);
  // Parsed in the turn before; decoded (and then routed) each in a turn of its own.
  const large = served.held.bytes > largeBodyBytes;
  if (large) await yieldFullTurn();
  const started = performance.now();
  const decoded = inboundCodecs[call.protocol].decodeRequest(body, {
    ...call.decodeContext,
    opaque: taggedOpaque,
  });
  served.model = decoded.model;
  served.stream = decoded.stream;
  // One id per native request, in its events, headers and access log line: the client's own
  // `requestId` (a token, checked by the codec), else the gateway's (`x-request-id` or a new one).
  if (call.protocol === 'switchyard') {
    if (decoded.request.requestId === undefined) decoded.request.requestId = call.requestId as RequestId;
    else call.requestId = decoded.request.requestId;
  }
  // An unknown name fails in routing with its classified error (404 in the client's shape).
  const model = permittedModel(state, call.key, decoded.model);
  const native = inboundCodecs[call.protocol].nativeProvider;
  const nativeRoute = isNativeRoute(call.protocol, model);
  leaveOutProviderTools(state, decoded, nativeRoute);
  routeDisabledThinkingEffort(decoded, nativeRoute);
  // The client's beta flags reach an Anthropic upstream only: never another origin.
  if (nativeRoute && native?.type === 'anthropic')
    applyClientBetas(decoded, headerOf(call.request, call.incoming, 'anthropic-beta'), state.clientBetas);
  warnLeftOut(state, call, decoded.warnings);
  // The adapter the route names (`work-claude`, an account of the protocol's provider) adopts them.
  if (nativeRoute && native !== undefined && model !== undefined) {
    adoptUntaggedArtifacts(decoded.request.transcript, model.provider, native.provider);
    adoptUntaggedItems(decoded.request.transcript, model.provider);
  }
  // Server tools run at the protocol's own provider: another would silently offer none. A name the
  // registry does not know routes nowhere: routing's 404 says so, not this.
  if (decoded.serverTools !== undefined && model !== undefined && !nativeRoute)
    throw new RequestFieldError(
      'tools',
      `tools: server tool '${shown(decoded.serverTools[0]!.type)}' is served only by an upstream of the client's protocol; '${shown(decoded.model)}' routes to another provider`,
      'unsupported',
    );
  // Another protocol than the model's, and not its provider's own (a Responses client naming
  // `openai:gpt-4o`, a Chat client naming an OpenAI Responses model: OpenAI's two protocols sized
  // its cap for OpenAI's models; known by the adapter's type, whatever its name): the cap was meant
  // for another vendor's.
  if (
    model !== undefined &&
    call.protocol !== 'switchyard' &&
    model.protocol !== call.protocol &&
    model.type !== native?.provider &&
    !(call.protocol === 'openai-chat' && model.type === 'openai-responses')
  )
    served.foreignCap = true;
  // A label from a bounded set: ids the registry or the bundled catalog knows; any other name a
  // glob or a `provider:` prefix matched is the client's own text, counted under its provider.
  if (model !== undefined) served.modelId = modelLabel(state, model);
  // Switchyard's own protocol carries its artifacts: nothing was kept for it, nothing to look up.
  const preparing =
    call.protocol === 'switchyard'
      ? undefined
      : prepareTranscript(
          state,
          decoded,
          scopeOf(call.key?.name),
          served.held,
          model?.protocol === 'gemini',
          call.connection,
        );
  if (preparing !== undefined) await preparing;
  const cache = decoded.request.cache;
  if (cache?.key !== undefined)
    decoded.request.cache = { ...cache, key: scopedCacheKey(scopeOf(call.key?.name), cache.key) };
  checkToolPairs(decoded.request.transcript, inboundCodecs[call.protocol].conversationField ?? 'messages');
  checkMediaUris(decoded.request.transcript, state.mediaSchemes);
  served.toolNames = renameTools(decoded.request);
  served.ownMs += performance.now() - started;
  if (large) await yieldFullTurn();
  return decoded;
}

/**
 * A resolved model's metrics label, from a fixed set whatever names clients send: its canonical id
 * when the registry knows it by name, when a glob or a `provider:` prefix reached a model the
 * bundled catalog has a row for (`gpt-4o` through the default glob `openai:gpt-*` is
 * `openai:gpt-4o`, as `openai:gpt-4o` is; `responses:gpt-4o` through `responses:gpt-*` on an OpenAI
 * Responses adapter named `responses` is `responses:gpt-4o`: the catalog is looked up by the
 * provider's own name) or one the configuration names (`claude-sonnet-4-5`, the `sonnet` alias's
 * model); else `{provider}:other`.
 */
export function modelLabel(
  state: GatewayState,
  model: NonNullable<ReturnType<typeof permittedModel>>,
): string {
  if (model.matchedBy === 'exact' || model.matchedBy === 'alias') return model.id;
  // An adapter named otherwise (`responses`, `acct-a`) finds its rows under its provider's own name.
  if (isCatalogued(model.ownName ?? model.provider, model.wireName)) return model.id;
  try {
    if (state.switchyard.resolve(model.id).matchedBy === 'exact') return model.id;
  } catch {
    // Its id resolves to nothing on its own: no model the configuration names.
  }
  return `${model.provider}:other`;
}

/**
 * The model check of every route that names one: a name outside the key's `models` is a 403
 * whether or not the registry knows it (a key learns nothing of models it may not use). The
 * resolved model, or undefined when the registry does not know the name.
 */
export function permittedModel(
  state: GatewayState,
  key: GatewayKey | undefined,
  name: string,
): ReturnType<GatewayState['switchyard']['resolve']> | undefined {
  let model: ReturnType<GatewayState['switchyard']['resolve']> | undefined;
  let unknown = false;
  try {
    model = state.switchyard.resolve(name);
  } catch (error) {
    model = undefined;
    unknown = isAdapterError(error) && error.providerCode === 'unknown_model';
  }
  if (!allowsModel(key, namesOf(name, model), model?.id)) throw new GatewayError(modelForbidden(name));
  // The registry's "did you mean" picks from every configured name, another tenant's aliases
  // included: a key limited to some models is told the name is unknown, and nothing more.
  if (unknown && key?.models !== undefined) throw unknownModel(name, 'no model, alias or glob matches it');
  return model;
}
