/**
 * One generation request through the gateway: read and decode the client's request, route it
 * through the front door, and encode the reply — whole, or as an honest stream: the preamble waits
 * for the first content event (a failure before it is a proper HTTP error), a failure after it is
 * the protocol's in-band error, never a clean finish. The upstream is pulled only as fast as the
 * client reads, and a client that goes away cancels it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { yieldFullTurn } from '../transport/cooperative.ts';
import { inboundCodecs } from '../codecs/index.ts';
import { checkToolPairs } from '../codecs/common.ts';
import { RequestFieldError, shown } from '../codecs/fields.ts';
import { checkMediaUris } from './media-uris.ts';
import { storeResponse, withStoredResponses } from './stored-responses.ts';
import { isAdapterError } from '../core/errors/guards.ts';
import { unknownModel } from '../registry/resolve.ts';
import { createResponsesId } from '../codecs/ids.ts';
import { finalResponseText, markUnstored } from '../codecs/openai-responses/response.ts';
import { routeDisabledThinkingEffort } from '../codecs/anthropic-messages/request.ts';
import { isNativeRoute, leaveOutProviderTools, warnFallbackLeftOut, warnLeftOut } from './left-out.ts';
import { underClientCallIds } from '../codecs/openai-responses/client-calls.ts';
import { taggedOpaque } from '../codecs/opaque.ts';
import type {
  DecodeContext,
  DecodedRequest,
  EncodeContext,
  InboundProtocol,
  WireError,
  WireFrame,
} from '../codecs/types.ts';
import type { CallOptions } from '../core/adapter.ts';
import { isContentEvent, maxHeldEvents } from '../core/content-events.ts';
import type { StreamEvent } from '../core/events.ts';
import type { CanonicalResponse } from '../core/request.ts';
import type { Item } from '../core/transcript.ts';
import type { RouteRequest } from '../routing/router.ts';
import {
  adoptUntaggedArtifacts,
  adoptUntaggedItems,
  restoreArtifacts,
  saveArtifacts,
  scopedCacheKey,
  scopeOf,
} from './artifacts.ts';
import { restoreTextSignatures } from './text-signatures.ts';
import {
  clientClosed,
  inClientTerms,
  modelFailure,
  shutDown,
  GatewayError,
  toWireError,
  failureWarning,
  hidesUnfinishedCall,
  unfinishedCallIn,
  withClientParam,
} from './errors.ts';
import { allowsModel, type GatewayKey, modelForbidden, namesOf } from './keys.ts';
import { admitCall, hasQuota, type KeyQuota, settleCall } from './quota.ts';
import { enterKey, leaveKey } from './key-limits.ts';
import type { Reservation } from '../state/types.ts';
import { seriesOf } from './metrics.ts';
import { finishLog, type LoggedRequest } from './access-log.ts';
import { headerOf, largeBodyBytes } from './inbound.ts';
import { applyClientBetas } from './betas.ts';
import { HeldBody, readHeldJson } from './body-hold.ts';
import { errorReply, type Reply, requestIdHeaders, sentReply } from './reply.ts';
import { createBodyPump, createFramer, type Framer, webBody, writeToNode } from './stream-body.ts';
import type { GatewayState } from './state.ts';
import { clientEvent, clientResponse, clientText, renameTools } from './tool-names.ts';

/** One inbound generation request. */
export interface GenerationCall {
  protocol: InboundProtocol;
  /** The web request (Hono); the gateway's own server passes Node's `incoming` instead. */
  request?: Request;
  /** The request's path (access log). */
  path: string;
  requestId: string;
  key: GatewayKey | undefined;
  decodeContext?: DecodeContext;
  /** Gemini streams without `alt=sse`: one JSON array instead of SSE. */
  jsonArray?: boolean;
  /** How a stream's frames become text (default: SSE, or the JSON array); the WebSocket's own lines. */
  framer?: Framer;
  /** The body already parsed (a WebSocket message): not read from `request` / `incoming`. */
  body?: unknown;
  /** The size of `body` as it arrived, counted against `gateway.max_request_bytes_in_flight`. */
  bodyBytes?: number;
  /** Aborted when the client gives the call up (a WebSocket cancel or close). */
  signal?: AbortSignal;
  /**
   * Node's response, when served by @hono/node-server: the client went away when it closes before
   * it finished (reading the request's `signal` would make the server build an AbortController per
   * request), and streams are written to it directly.
   */
  outgoing?: ServerResponse;
  /** Node's request, when served by @hono/node-server: headers and body are read from it directly. */
  incoming?: IncomingMessage;
  /** True when the gateway's own server serves the request: streams are written to `outgoing` directly. */
  directWrites?: boolean;
}

/**
 * Calls `onGone` when the client goes away before the reply is finished (Node's response closes
 * unfinished, else the web request's or the call's signal aborts); returns the unsubscribe. Shared
 * by the generation and the token-count routes.
 */
export function watchClient(
  call: Pick<GenerationCall, 'outgoing' | 'request' | 'signal'>,
  onGone: () => void,
): () => void {
  const { outgoing } = call;
  if (outgoing === undefined) {
    const signal = call.signal ?? call.request?.signal;
    if (signal === undefined) return () => {};
    signal.addEventListener('abort', onGone, { once: true });
    return () => signal.removeEventListener('abort', onGone);
  }
  // Gone already (it left while the body was read): the close was before this listener.
  if (outgoing.destroyed || outgoing.socket?.destroyed === true) {
    onGone();
    return () => {};
  }
  const listener = () => {
    if (!outgoing.writableFinished) onGone();
  };
  outgoing.once('close', listener);
  return () => outgoing.off('close', listener);
}

/** Per-request bookkeeping: what the access log and metrics take (`access-log.ts`), and the call's own. */
interface Served extends LoggedRequest {
  call: GenerationCall;
  /** Upstream tool name → the client's, when a name had to be renamed (`tool-names.ts`). */
  toolNames?: Map<string, string>;
  /** What the call billed, failed calls included (settled against the key's limits and budget). */
  billed?: CanonicalResponse['usage'];
  /** The client went away before the reply ended (a stream cancelled, a request aborted). */
  clientLeft?: boolean;
  /** The key's reservation, settled when the request ends. */
  reservation?: Reservation;
  /** Request body bytes counted against the bytes-in-flight bound until the request ends. */
  held: HeldBody;
  /** Counted in its key's requests in flight (`max_in_flight`), until the request ends. */
  counted?: boolean;
  /**
   * The client speaks another protocol than the model it named: its cap, sized for its own vendor's
   * models, is lowered to this model's output limit (`CallOptions.lowerOutputCap`), not refused.
   */
  foreignCap?: boolean;
}

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
): Promise<void> | undefined {
  const { transcript } = decoded.request;
  const restore = () => {
    const artifacts = restoreArtifacts(transcript, state.store, scope);
    // Text signatures only matter to Gemini: no lookups on a route to any other provider.
    const texts = toGemini ? restoreTextSignatures(transcript, state.store, scope) : undefined;
    if (artifacts === undefined || texts === undefined) return artifacts ?? texts;
    return Promise.all([artifacts, texts]).then(() => undefined);
  };
  const stored = withStoredResponses(state.store, decoded, scope, held);
  return stored === undefined ? restore() : stored.then(restore);
}

/**
 * Keeps what the next turn needs: call artifacts, and the transcript of a stored Responses reply;
 * undefined when there is nothing to keep (no store round trip, no await).
 */
function remember(
  state: GatewayState,
  decoded: DecodedRequest,
  response: CanonicalResponse,
  context: EncodeContext,
  call: GenerationCall,
  replyText: string | undefined,
): Promise<void> | undefined {
  const { responseId } = context;
  // Switchyard's own protocol carries every artifact in its events: nothing to keep for it.
  if (call.protocol === 'switchyard') return undefined;
  const scope = scopeOf(call.key?.name);
  // A Responses client was given its client-run calls under the upstream's call_id
  // (client-calls.ts): what is kept for its next turn names them so, or its answer would name none.
  const kept =
    call.protocol === 'openai-responses'
      ? { ...response, content: underClientCallIds(response.content, response.provider) }
      : response;
  const saving = saveArtifacts(kept.content, kept.provider, state.store, state.ttlMs, scope);
  const keeping =
    call.protocol !== 'openai-responses' || decoded.store === false || responseId === undefined
      ? saving
      : storeResponse(
          state,
          { decoded, response: kept, context, replyText, scope, requestId: call.requestId },
          saving,
        );
  // The upstream call was made and paid: a store that fails now costs the next turn what it would
  // have read (a stored response, a signature), never this reply — which says `store: false`.
  return keeping?.catch((error: unknown) => {
    context.store = false;
    state.logger.warn('gateway: the state store did not keep this reply', {
      requestId: call.requestId,
      error: error instanceof Error ? error.name : 'unknown',
      message: error instanceof Error ? error.message.slice(0, 200) : undefined,
    });
  });
}

function encodeContext(decoded: DecodedRequest, protocol: InboundProtocol, served: Served): EncodeContext {
  const context: EncodeContext = {
    model: decoded.model,
    opaque: taggedOpaque,
    callIds: true,
    leftOut: (part) => (served.leftOut ??= new Set()).add(part),
  };
  if (decoded.streamUsage === true) context.streamUsage = true;
  if (decoded.freeform !== undefined) context.freeform = decoded.freeform;
  if (decoded.hideThoughts === true) context.hideThoughts = true;
  if (protocol === 'openai-responses') {
    context.responseId = createResponsesId('resp');
    context.store = decoded.store ?? true;
    if (decoded.previousResponseId !== undefined) context.previousResponseId = decoded.previousResponseId;
    if (decoded.namespaces !== undefined) context.namespaces = decoded.namespaces;
  }
  return context;
}

function headersOf(served: Served, contentType: string): Record<string, string> {
  return { 'content-type': contentType, ...requestIdHeaders(served.call.protocol, served.call.requestId) };
}

/**
 * Serves one generation request end to end: `send` gets the reply (for a stream: once its first
 * content is ready), and the bookkeeping (metrics, access log, the key's settlement) runs after it,
 * off the reply's path. Never throws.
 */
export async function serveGeneration(
  state: GatewayState,
  call: GenerationCall,
  send: (reply: Reply) => void,
): Promise<void> {
  const served: Served = {
    call,
    startedAt: performance.now(),
    ownMs: 0,
    model: 'unknown',
    stream: false,
    status: 200,
    held: new HeldBody(state),
  };
  const controller = new AbortController();
  const onClientGone = () => {
    served.clientLeft = true;
    controller.abort(new Error('client disconnected'));
  };
  const unwatch = watchClient(call, onClientGone);
  state.calls.add(controller);
  const inFlight = seriesOf(state.metrics.inFlight, call.protocol);
  inFlight.inc();
  let streaming = false;
  const release = () => {
    served.held.release();
    if (served.counted === true) leaveKey(state, call.key!.name);
    unwatch();
    state.calls.delete(controller);
    inFlight.dec();
    if (served.reservation !== undefined)
      void settleCall(state.shared, served.reservation, served.billed ?? served.usage, served.clientLeft);
    logWhenDelivered(state, served, call.outgoing);
  };
  let transcript: Item[] | undefined;
  let requestFields: DecodedRequest['requestFields'];
  try {
    if (call.key?.maxInFlight !== undefined)
      served.counted = enterKey(state, call.key.name, call.key.maxInFlight);
    const decoded = await decode(state, call, served);
    transcript = decoded.request.transcript;
    requestFields = decoded.requestFields;
    if (hasQuota(call.key)) await admit(state, call.key, decoded, served);
    const routeRequest: RouteRequest = { ...decoded.request, model: decoded.model };
    const context = encodeContext(decoded, call.protocol, served);
    if (!decoded.stream) {
      send(await complete(state, served, decoded, routeRequest, context, controller));
      return;
    }
    const reply = await startStream(state, served, decoded, routeRequest, context, controller, release);
    streaming = true;
    send(reply);
  } catch (error) {
    reportUnexpected(state, call.requestId, error);
    let wire = clientWire(
      withClientParam(inClientTerms(toWireError(error), transcript), error, call.protocol, requestFields),
      served.toolNames,
    );
    // Cancelled, and not by the client: a shutdown (the client is still there to be told).
    if (wire.errorClass === 'cancelled' && served.clientLeft !== true && !state.accepting)
      wire = shutDown().wire;
    served.status = wire.status;
    served.errorClass = wire.errorClass;
    send(errorReply(call.protocol, wire, call.requestId));
  } finally {
    if (!streaming) release();
  }
}

/**
 * The access log line and metrics of a served request, once its reply is out. A reply Node still
 * holds — pipelined behind another on the connection, or not yet flushed — is logged when it is
 * delivered, or as 499 `cancelled` when the client leaves first (it was logged 200, never sent).
 */
function logWhenDelivered(state: GatewayState, served: Served, outgoing: ServerResponse | undefined): void {
  if (outgoing === undefined || outgoing.writableFinished) return finishLog(state, served);
  const settle = () => {
    if (!outgoing.writableFinished && served.status < 400) {
      served.status = 499;
      served.errorClass = 'cancelled';
      served.clientLeft = true;
    }
    finishLog(state, served);
  };
  if (outgoing.destroyed) settle();
  else outgoing.once('close', settle);
}

/** Logs what the operator must see of a failure ({@link failureWarning}). */
function reportUnexpected(state: GatewayState, requestId: string, error: unknown): void {
  const warning = failureWarning(error);
  if (warning !== undefined) state.logger.warn(warning.message, { requestId, ...warning.fields });
}

/** The key's limits and budget before dispatch (one state-store step); throws the 429/402/503 to answer. */
async function admit(
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
  try {
    const model = state.switchyard.resolve(decoded.model);
    modelId = model.id;
    maxOutputTokens = model.facts.maxOutputTokens;
    outputCap =
      model.matchedBy === 'alias' || served.foreignCap === true ? bound(maxOutputTokens) : undefined;
    for (const name of model.fallbacks) {
      try {
        const fallback = state.switchyard.resolve(name);
        // Only the fallbacks the key may reach: by any of its names, as routing decides.
        if (allowsModel(key, [name, fallback.id, ...fallback.aliases])) {
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
  served.reservation = await admitCall(
    state.shared,
    key,
    { request: decoded.request, modelId, fallbackIds, maxOutputTokens, outputCap },
    state.switchyard.prices,
  );
  served.ownMs += performance.now() - started;
}

async function decode(state: GatewayState, call: GenerationCall, served: Served): Promise<DecodedRequest> {
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
    'body' in call ? call.body : await readHeldJson(state, call.request, call.incoming, served.held);
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
  if (nativeRoute && native !== undefined) {
    adoptUntaggedArtifacts(decoded.request.transcript, native.provider);
    adoptUntaggedItems(decoded.request.transcript, native.provider);
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
  // its cap for OpenAI's models): the cap was meant for another vendor's.
  if (
    model !== undefined &&
    call.protocol !== 'switchyard' &&
    model.protocol !== call.protocol &&
    model.provider !== native?.provider &&
    !(call.protocol === 'openai-chat' && model.type === 'openai-responses')
  )
    served.foreignCap = true;
  // A label from a bounded set: ids and aliases the registry knows; a name that only a glob or a
  // `provider:` prefix matched is the client's own text, counted under its provider.
  if (model !== undefined)
    served.modelId =
      model.matchedBy === 'exact' || model.matchedBy === 'alias' ? model.id : `${model.provider}:other`;
  // Switchyard's own protocol carries its artifacts: nothing was kept for it, nothing to look up.
  const preparing =
    call.protocol === 'switchyard'
      ? undefined
      : prepareTranscript(state, decoded, scopeOf(call.key?.name), served.held, model?.protocol === 'gemini');
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
  if (!allowsModel(key, namesOf(name, model))) throw new GatewayError(modelForbidden(name));
  // The registry's "did you mean" picks from every configured name, another tenant's aliases
  // included: a key limited to some models is told the name is unknown, and nothing more.
  if (unknown && key?.models !== undefined) throw unknownModel(name, 'no model, alias or glob matches it');
  return model;
}

/**
 * The front door's options of a call: its signal; for a key with `models`, the fallbacks it may use;
 * for a client of another protocol than its model's, its cap lowered to the model's limit.
 */
function upstreamOptions(
  state: GatewayState,
  served: Served,
  decoded: DecodedRequest,
  controller: AbortController,
): CallOptions {
  const { key } = served.call;
  const keyAllows =
    key?.models === undefined ? undefined : (names: readonly string[]) => allowsModel(key, names);
  // A request with server tools falls back only to models of the same provider type.
  const type =
    decoded.serverTools === undefined ? undefined : inboundCodecs[served.call.protocol].nativeProvider?.type;
  const options: CallOptions = { signal: controller.signal };
  if (served.foreignCap === true) options.lowerOutputCap = true;
  if (keyAllows !== undefined || type !== undefined)
    options.allowFallback = (names) =>
      (keyAllows === undefined || keyAllows(names)) && (type === undefined || typeOf(state, names) === type);
  return options;
}

/** The provider type a fallback's names resolve to, or undefined when they resolve to nothing. */
function typeOf(state: GatewayState, names: readonly string[]): string | undefined {
  try {
    return state.switchyard.resolve(names[0]!).type;
  } catch {
    return undefined;
  }
}

async function complete(
  state: GatewayState,
  served: Served,
  decoded: DecodedRequest,
  routeRequest: RouteRequest,
  context: EncodeContext,
  controller: AbortController,
): Promise<Reply> {
  const upstreamStart = performance.now();
  const answered = await state.switchyard.complete(
    routeRequest,
    upstreamOptions(state, served, decoded, controller),
  );
  const encodeStart = performance.now();
  warnFallbackLeftOut(state, served.call, decoded, answered);
  const reply = served.toolNames === undefined ? answered : clientResponse(answered, served.toolNames);
  served.provider = reply.provider;
  served.usage = reply.usage;
  if (reply.finishReason === 'error') throw modelFailure(reply);
  // Cancelled, and not by the client (a shutdown, or the upstream itself): never a whole reply.
  if (reply.finishReason === 'cancelled' && served.clientLeft !== true)
    throw state.accepting ? modelFailure(reply) : shutDown();
  const unfinished = unfinishedCallIn(served.call.protocol, reply);
  if (unfinished !== undefined) throw unfinished;
  // Encoded before it is stored: a stored Responses reply keeps the text the client gets.
  const { encodeResponse } = inboundCodecs[served.call.protocol];
  const storing = context.store === true;
  let body = JSON.stringify(encodeResponse(reply, context));
  const remembering = remember(state, decoded, reply, context, served.call, body);
  if (remembering !== undefined) await remembering;
  // Not stored after all (over the limit, or the store failed): the reply says so.
  if (storing && context.store === false) body = JSON.stringify(encodeResponse(reply, context));
  const total = performance.now() - served.startedAt;
  served.ownMs = total - (encodeStart - upstreamStart);
  const headers = headersOf(served, 'application/json');
  headers['x-switchyard-overhead-ms'] = served.ownMs.toFixed(3);
  return { status: 200, headers, body };
}

async function startStream(
  state: GatewayState,
  served: Served,
  decoded: DecodedRequest,
  routeRequest: RouteRequest,
  context: EncodeContext,
  controller: AbortController,
  release: () => void,
): Promise<Reply> {
  const { protocol } = served.call;
  const streamEncoder = inboundCodecs[protocol].createStreamEncoder(context);
  const turn = state.switchyard.stream(routeRequest, upstreamOptions(state, served, decoded, controller));
  const iterator = turn[Symbol.asyncIterator]();
  const framer = served.call.framer ?? createFramer(served.call.jsonArray === true);
  /**
   * Keeps what the next turn needs, then lets the final frames go: a stored Responses reply keeps
   * its `response.completed` object as encoded, so they are encoded first (and say
   * `store: false` after all when it could not be stored).
   */
  const settle = (response: CanonicalResponse, encoded: WireFrame[]): WireFrame[] | Promise<WireFrame[]> => {
    served.provider = response.provider;
    served.usage = response.usage;
    warnFallbackLeftOut(state, served.call, decoded, response);
    const storing = context.store === true;
    const replyText = storing ? finalResponseText(encoded) : undefined;
    const remembering = remember(state, decoded, response, context, served.call, replyText);
    if (remembering === undefined) return encoded;
    return remembering.then(() => {
      if (storing && context.store === false) markUnstored(encoded);
      return encoded;
    });
  };
  let failedFinish: CanonicalResponse | undefined;
  const endOfEvents = () => {
    if (failedFinish !== undefined) throw modelFailure(failedFinish);
  };
  const { toolNames } = served;
  const onEvent = (upstream: StreamEvent): WireFrame[] | Promise<WireFrame[]> => {
    const started = performance.now();
    const event = toolNames === undefined ? upstream : clientEvent(upstream, toolNames);
    // A Gemini client would get the call whole now: an unfinished one is never sent. The reply
    // fails at the finish (billed first, and a failure or a cancel keeps its own error).
    if (
      event.type === 'tool-call-end' &&
      event.incomplete === true &&
      hidesUnfinishedCall(protocol, undefined)
    )
      return [];
    if (event.type === 'finish') {
      served.billed = event.response.usage;
      const { finishReason } = event.response;
      // Cancelled, and not by the client (who gets nothing more): by a shutdown, or by the upstream
      // (a Responses `status: cancelled`) — told in-band either way, never a clean end.
      if (finishReason === 'cancelled' && served.clientLeft !== true)
        throw state.accepting ? modelFailure(event.response) : shutDown();
      // A failed call's finish(error) is followed by its error; one followed by the end is a
      // model failure (the call succeeded, the reply is unusable): `endOfEvents` tells them apart.
      if (finishReason === 'error') {
        failedFinish = event.response;
        served.provider = event.response.provider;
        served.usage = event.response.usage;
      }
      if (finishReason !== 'error' && finishReason !== 'cancelled') {
        const unfinished = unfinishedCallIn(protocol, event.response);
        if (unfinished !== undefined) {
          served.provider = event.response.provider;
          served.usage = event.response.usage;
          throw unfinished;
        }
        return settle(event.response, frames(event, started));
      }
    }
    return frames(event, started);
  };
  const frames = (event: StreamEvent, started: number): WireFrame[] => {
    const encoded = streamEncoder.event(event);
    served.ownMs += performance.now() - started;
    return encoded;
  };
  // Honest streaming: nothing is sent until the first content event; a failure before it throws here.
  const first: WireFrame[] = [];
  let done = false;
  // At most `maxHeldEvents` before the first content: past it the stream counts as begun.
  for (let held = 0; ; held++) {
    const next = await iterator.next();
    if (next.done === true) {
      endOfEvents();
      done = true;
      break;
    }
    const frames = await onEvent(next.value);
    for (const frame of frames) first.push(frame);
    if ((first.length > 0 && isContentEvent(next.value)) || held >= maxHeldEvents) break;
  }
  // The client gave up before any content (the front door ends such a stream with a clean
  // `cancelled` finish): it gets nothing more, and the call is logged 499.
  if (served.clientLeft === true) throw clientClosed();
  served.firstByteMs = performance.now() - served.startedAt;
  state.metrics.timeToFirstToken.series(protocol).observe(served.firstByteMs / 1000);
  const pump = createBodyPump({
    iterator,
    onEvent,
    framer,
    streamEncoder,
    controller,
    finish: release,
    endOfEvents,
    wireError: (error) => {
      reportUnexpected(state, served.call.requestId, error);
      return clientWire(toWireError(error), served.toolNames);
    },
    onCancel: () => {
      served.clientLeft = true;
      served.errorClass = 'cancelled';
      served.status = 499;
    },
    onError: (errorClass, status) => {
      served.errorClass = errorClass;
      served.status = status;
      // A failed reply is never stored: its `response.failed` says so.
      context.store = false;
    },
    first,
    done,
  });
  const contentType =
    served.call.jsonArray === true ? 'application/json' : 'text/event-stream; charset=utf-8';
  const headers = { ...headersOf(served, contentType), 'cache-control': 'no-cache' };
  // A reply that is whole by then leaves in one write. Otherwise the first content goes at once,
  // with the headers (the rest of a burst the upstream delivered follows in the next write: the
  // client's first byte never waits for the whole burst to be translated). Nothing framed yet (past
  // `maxHeldEvents` of a preamble the protocol has no frame for): the headers go now, the frames as they come.
  const head = done ? ((await pump.read()) ?? '') : pump.takeFirst();
  if (pump.ended) return { status: 200, headers, body: head };
  const { outgoing } = served.call;
  if (served.call.directWrites !== true || outgoing === undefined)
    return { status: 200, headers, body: webBody(pump, head) };
  writeToNode(pump, head, outgoing, headers, state.sendTimeoutMs);
  return sentReply;
}

/** `wire` with the upstream's names for renamed tools put back to the client's (`tool-names.ts`). */
function clientWire(wire: WireError, names: ReadonlyMap<string, string> | undefined): WireError {
  return names === undefined ? wire : { ...wire, message: clientText(wire.message, names) };
}
