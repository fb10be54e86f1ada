/**
 * One generation request through the gateway, end to end: its way in (`generate-request.ts`: read,
 * decode, check, complete the transcript, admit), its reply (`generate-response.ts`: the front
 * door's answer encoded whole or as an honest stream), and around both the request's bookkeeping —
 * the key's in-flight slot and reservation, the bytes held, the access log and metrics once the
 * reply is out — and every failure answered in the client protocol's shape.
 */
import { createResponsesId } from '../codecs/ids.ts';
import { taggedOpaque } from '../codecs/opaque.ts';
import type { DecodedRequest, EncodeContext, InboundProtocol } from '../codecs/types.ts';
import type { Item } from '../core/transcript.ts';
import type { RouteRequest } from '../routing/router.ts';
import { inClientTerms, shutDown, toWireError, withClientParam } from './errors.ts';
import { hasQuota, settleCall } from './quota.ts';
import { enterKey, leaveKey } from './key-limits.ts';
import { undelivered } from './delivery.ts';
import { seriesOf } from './metrics.ts';
import { logWhenDelivered } from './access-log.ts';
import { HeldBody, holderOf } from './body-hold.ts';
import { errorReply, type Reply } from './reply.ts';
import type { GatewayState } from './state.ts';
import { decode, admit } from './generate-request.ts';
import { complete, startStream, reportUnexpected, clientWire, upstreamCoded } from './generate-response.ts';
import { type GenerationCall, type Served, watchClient } from './generation-call.ts';

/** How the reply is encoded for the client: its model name, ids, and a Responses reply's storing. */
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

/**
 * Gives back the request's place in its key's `max_in_flight` once its reply is delivered: at once
 * when the client's socket took it all, else when the reply closes — taken by its client, or cut
 * off after `send_timeout_seconds` ({@link deliverWithin}). A key's clients that leave replies
 * unread hold at most `max_in_flight` of them in memory (as nginx's `limit_conn` counts a
 * connection until its response is sent). A reply not yet ended on Node's response is one the Hono
 * app writes after this (its handler's `Response`, or the rest of a web stream): held until the
 * response closes, which it does once written, taken or cut (`cutIfUnread` in `node-listener.ts`),
 * or its client gone. Without Node's response (another host), nothing tells: given back at once.
 */
function holdUntilDelivered(state: GatewayState, call: GenerationCall): void {
  const { outgoing } = call;
  const { name } = call.key!;
  if (outgoing === undefined || (outgoing.writableEnded ? !undelivered(outgoing) : outgoing.destroyed))
    leaveKey(state, name);
  else outgoing.once('close', () => leaveKey(state, name));
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
    held: new HeldBody(state, holderOf(state, call.key)),
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
    if (served.counted === true) holdUntilDelivered(state, call);
    unwatch();
    state.calls.delete(controller);
    inFlight.dec();
    if (served.reservation !== undefined)
      void settleCall(state.shared, served.reservation, served.billed ?? served.usage, served.clientLeft);
    logWhenDelivered(state, served, call.outgoing);
  };
  let transcript: Item[] | undefined;
  let requestFields: DecodedRequest['requestFields'];
  // Set once the upstream call is made: an error's overhead is then the gateway's measured steps.
  let calling = false;
  try {
    if (call.key?.maxInFlight !== undefined)
      served.counted = enterKey(state, call.key.name, call.key.maxInFlight);
    // The call's cancellation ends a body still arriving too: a shutdown's 503 instead of a cut connection.
    const decoded = await decode(state, call, served, controller.signal);
    transcript = decoded.request.transcript;
    requestFields = decoded.requestFields;
    if (hasQuota(call.key)) await admit(state, call.key, decoded, served);
    const routeRequest: RouteRequest = { ...decoded.request, model: decoded.model };
    const context = encodeContext(decoded, call.protocol, served);
    calling = true;
    if (!decoded.stream) {
      send(await complete(state, served, decoded, routeRequest, context, controller));
      return;
    }
    const reply = await startStream(state, served, decoded, routeRequest, context, controller, release);
    streaming = true;
    send(reply);
  } catch (error) {
    const caught = performance.now();
    reportUnexpected(state, call.requestId, error);
    let wire = clientWire(
      withClientParam(
        inClientTerms(upstreamCoded(state, toWireError(error), error, call.protocol), transcript),
        error,
        call.protocol,
        requestFields,
      ),
      served.toolNames,
    );
    // Cancelled, and not by the client: a shutdown (the client is still there to be told).
    let closing = false;
    if (wire.errorClass === 'cancelled' && served.clientLeft !== true && !state.accepting) {
      wire = shutDown().wire;
      closing = true;
    }
    served.status = wire.status;
    served.errorClass = wire.errorClass;
    // The gateway's own time, as a whole reply's header gives it: all of it before an upstream call
    // (nothing else was waited on); after one, its measured steps and this answer's.
    const ownMs = calling ? served.ownMs + performance.now() - caught : performance.now() - served.startedAt;
    const reply = errorReply(call.protocol, wire, call.requestId, ownMs);
    // The drain is over: the server closes the connection after this reply (its body may not all
    // have arrived), and says so.
    if (closing) reply.headers.connection = 'close';
    send(reply);
  } finally {
    if (!streaming) release();
  }
}
