/**
 * A generation's reply (`generate.ts`): the front door called with the key's fallbacks, and its answer
 * encoded in the client's protocol — whole, or as an honest stream: the preamble waits for the first
 * content event (a failure before it is a proper HTTP error), a failure after it is the protocol's
 * in-band error, never a clean finish. What the next turn needs is kept before the reply ends.
 */
import { inboundCodecs } from '../codecs/index.ts';
import { conversationOf, storeResponse } from './stored-responses.ts';
import type { Item } from '../core/transcript.ts';
import { HeldBody, holderOf } from './body-hold.ts';
import { approximateSize } from '../core/value-shape.ts';
import { finalResponseText, markUnstored } from '../codecs/openai-responses/response.ts';
import { warnFallbackLeftOut } from './left-out.ts';
import { underClientCallIds } from '../codecs/openai-responses/client-calls.ts';
import type {
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
import type { RouteRequest } from '../routing/router.ts';
import { saveArtifacts, scopeOf } from './artifacts.ts';
import {
  clientClosed,
  modelFailure,
  shutDown,
  toWireError,
  failureWarning,
  accountWarning,
  hidesUnfinishedCall,
  unfinishedCallIn,
  withUpstreamCode,
} from './errors.ts';
import { allowsModel } from './keys.ts';
import { WarnOnce } from '../core/lru.ts';
import { StateUnavailableError } from '../state/outage.ts';
import { type Reply, requestIdHeaders, sentReply } from './reply.ts';
import { createBodyPump, createFramer, webBody, writeToNode } from './stream-body.ts';
import type { GatewayState } from './state.ts';
import { clientEvent, clientResponse, clientText } from './tool-names.ts';
import type { GenerationCall, Served } from './generation-call.ts';

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
  if (call.connection !== undefined && responseId !== undefined)
    keepOnConnection(
      state,
      call,
      responseId,
      decoded.store === false ? conversationOf(decoded, kept) : undefined,
    );
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
    // The store WARNs of its own failures once (per outage, per refusal by Redis): not per reply.
    if (StateUnavailableError.isInstance(error)) return;
    state.logger.warn('gateway: the state store did not keep this reply', {
      requestId: call.requestId,
      error: error instanceof Error ? error.name : 'unknown',
      message: error instanceof Error ? error.message.slice(0, 200) : undefined,
    });
  });
}

/**
 * A Responses WebSocket's most recent response, kept on its connection for the next
 * `response.create` when it is not stored (`store: false`: its `transcript`); a stored one
 * (`transcript` undefined) is read from the store as on HTTP — a `DELETE` reaches it — and the
 * connection keeps nothing. A kept conversation holds its bytes against
 * `max_request_bytes_in_flight` (and the key's share) as a body does, until replaced or the
 * connection closes; one over the body limit, or one the bound has no room for, is not kept, with
 * a WARN: a `previous_response_id` naming it is then not found (the client sends the conversation
 * again, as after OpenAI's own cache miss).
 */
function keepOnConnection(
  state: GatewayState,
  call: GenerationCall,
  id: string,
  transcript: Item[] | undefined,
): void {
  const connection = call.connection!;
  if (connection.closed === true) return;
  const held = (connection.held ??= new HeldBody(state, holderOf(state, call.key)));
  connection.last = undefined;
  if (transcript === undefined) return held.set(0);
  const size = approximateSize(transcript, state.bodyLimit);
  let reason = size > state.bodyLimit ? 'its conversation is over the body limit' : undefined;
  if (reason === undefined)
    try {
      held.set(size);
      connection.last = { id, transcript };
      return;
    } catch {
      reason = 'the request bytes in flight have no room for its conversation';
    }
  held.set(0);
  state.logger.warn(`gateway: a response was not kept on its connection: ${reason}`, {
    requestId: call.requestId,
    approximateBytes: size,
  });
}

function headersOf(served: Served, contentType: string): Record<string, string> {
  return { 'content-type': contentType, ...requestIdHeaders(served.call.protocol, served.call.requestId) };
}

/** Per gateway: the upstream accounts already warned about ({@link accountWarning}). */
const warnedAccounts = new WeakMap<GatewayState, WarnOnce>();

/**
 * Logs what the operator must see of a failure ({@link failureWarning}), and, once per provider and
 * kind, the whole text of one that named the operator's account ({@link accountWarning}).
 */
export function reportUnexpected(state: GatewayState, requestId: string, error: unknown): void {
  const warning = failureWarning(error);
  if (warning !== undefined) state.logger.warn(warning.message, { requestId, ...warning.fields });
  const account = accountWarning(error);
  if (account === undefined) return;
  let warned = warnedAccounts.get(state);
  if (warned === undefined) warnedAccounts.set(state, (warned = new WarnOnce(100)));
  if (warned.check(account.key) === 'warn')
    state.logger.warn(account.message, { requestId, ...account.fields });
}

/**
 * The front door's options of a call: its signal; for a key with `models` or a budget, the fallbacks
 * it may use; for a client of another protocol than its model's, its cap lowered to the model's limit.
 */
function upstreamOptions(
  state: GatewayState,
  served: Served,
  decoded: DecodedRequest,
  controller: AbortController,
): CallOptions {
  const { key } = served.call;
  const { budgetFallbacks } = served;
  // A key with a budget falls back only to the models its reservation was priced on.
  const keyAllows =
    key?.models === undefined && budgetFallbacks === undefined
      ? undefined
      : (names: readonly string[]) =>
          // The router's names: the name asked for, the canonical id, the aliases.
          (key?.models === undefined || allowsModel(key, names, names[1])) &&
          (budgetFallbacks === undefined || budgetFallbacks.has(resolvedId(state, names)));
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

/** The canonical id a fallback's names resolve to, or '' when they resolve to nothing. */
function resolvedId(state: GatewayState, names: readonly string[]): string {
  try {
    return state.switchyard.resolve(names[0]!).id;
  } catch {
    return '';
  }
}

/** The provider type a fallback's names resolve to, or undefined when they resolve to nothing. */
function typeOf(state: GatewayState, names: readonly string[]): string | undefined {
  try {
    return state.switchyard.resolve(names[0]!).type;
  } catch {
    return undefined;
  }
}

export async function complete(
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

export async function startStream(
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
      return clientWire(upstreamCoded(state, toWireError(error), error, protocol), served.toolNames);
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
  if (served.call.directWrites !== true || outgoing === undefined) {
    // Through the Hono app on a host it does not own (mounted): its pulls are under the send
    // timeout. A WebSocket's reply (no web request) is under the socket's own.
    const sendTimeoutMs = served.call.request === undefined ? undefined : state.sendTimeoutMs;
    return { status: 200, headers, body: webBody(pump, head, sendTimeoutMs, outgoing) };
  }
  writeToNode(pump, head, outgoing, headers, state.sendTimeoutMs);
  return sentReply;
}

/** `wire` with an OpenAI upstream's own error code for an OpenAI-protocol client ({@link withUpstreamCode}). */
export function upstreamCoded(
  state: GatewayState,
  wire: WireError,
  error: unknown,
  protocol: InboundProtocol,
): WireError {
  return withUpstreamCode(
    wire,
    error,
    protocol,
    (provider) => state.switchyard.providers().find((entry) => entry.name === provider)?.type,
  );
}

/** `wire` with the upstream's names for renamed tools put back to the client's (`tool-names.ts`). */
export function clientWire(wire: WireError, names: ReadonlyMap<string, string> | undefined): WireError {
  return names === undefined ? wire : { ...wire, message: clientText(wire.message, names) };
}
