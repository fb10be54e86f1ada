/**
 * Switchyard's own protocol, inbound only (`POST /switchyard/v1/stream` and the WebSocket): the
 * canonical request as it is (a model name, transcript, tools, …), the canonical events out, one
 * SSE frame per event named by its type; errors in OpenAI's shape. No provider speaks it, so it is
 * not among the codecs the emulator writes.
 */
import { validateRouteRequest } from '../../core/request-schema.ts';
import { checkedToolChoice } from '../common.ts';
import { RequestFieldError } from '../fields.ts';
import { createFrame } from '../frames.ts';
import { encodeError } from '../openai-chat/errors.ts';
import type { StreamEvent } from '../../core/events.ts';
import { withoutUpstreamAddresses } from '../../core/errors/upstream-addresses.ts';
import { notAllowedReason } from '../../core/adapter.ts';
import type { DecodedRequest, ProtocolCodec, StreamEncoder, WireError, WireFrame } from '../types.ts';

/**
 * Canonical events as they are, one frame per event named by its type; what precedes the first
 * content (`message-start`, an early `usage`) is held until it (or a clean finish), so a failure
 * before content is an HTTP error and never a 200. The routing record's attempt reasons lose
 * upstream addresses, as error messages do.
 */
class SwitchyardEncoder implements StreamEncoder {
  started = false;
  readonly #held: WireFrame[] = [];

  event(event: StreamEvent): WireFrame[] {
    if (!this.started) {
      if (event.type === 'message-start' || event.type === 'usage') {
        this.#held.push(createFrame(event, event.type));
        return [];
      }
      const { finishReason } = event.type === 'finish' ? event.response : { finishReason: undefined };
      if (finishReason === 'error' || finishReason === 'cancelled') return [];
    }
    const frame = createFrame(event.type === 'finish' ? withoutAddresses(event) : event, event.type);
    if (this.started) return [frame];
    this.started = true;
    return [...this.#held.splice(0), frame];
  }

  error(error: WireError): WireFrame[] {
    return [createFrame({ type: 'error', error }, 'error')];
  }
}

/** A finish event whose routing record names no upstream URL or address. */
function withoutAddresses(event: StreamEvent & { type: 'finish' }): StreamEvent {
  const routing = event.response.metadata?.['switchyard.routing'] as
    { attempts?: Array<{ reason?: unknown }> } | undefined;
  if (routing?.attempts === undefined) return event;
  const attempts = routing.attempts
    .filter((attempt) => attempt.reason !== notAllowedReason)
    .map((attempt) =>
      typeof attempt.reason === 'string'
        ? { ...attempt, reason: withoutUpstreamAddresses(attempt.reason) }
        : attempt,
    );
  const metadata = { ...event.response.metadata, 'switchyard.routing': { ...routing, attempts } };
  return { ...event, response: { ...event.response, metadata: metadata as never } };
}

/** The front door's own validation, so that a refusal names the request's path before any state is read. */
function decodeRequest(body: unknown): DecodedRequest {
  const parsed = validateRouteRequest(body);
  if (!parsed.ok) {
    const [issue] = parsed.issues;
    const field = issue?.path === undefined || issue.path === '' ? 'request' : issue.path;
    throw new RequestFieldError(field, `${field}: ${issue?.message ?? 'invalid request'}`);
  }
  const { model, ...request } = parsed.value;
  // Provider options reach the provider's body as they are: they could name another model, more
  // choices or tokens, or tools — what a gateway key's models, limits and budget govern.
  if (request.providerOptions !== undefined)
    throw new RequestFieldError(
      'providerOptions',
      'providerOptions: provider options cannot be sent through the gateway (they can change the model, limits and tools the gateway governs)',
      'unsupported',
    );
  if (request.toolChoice !== undefined)
    request.toolChoice = checkedToolChoice(request.toolChoice, request.tools, 'toolChoice');
  // The request id names the call in logs and events: a plain token, as `x-request-id` is.
  if (request.requestId !== undefined && !/^[\w.:-]{1,128}$/.test(request.requestId))
    throw new RequestFieldError('requestId', 'requestId: at most 128 letters, digits, `_`, `.`, `:` or `-`');
  return { model, stream: true, request: request as DecodedRequest['request'] };
}

/** Switchyard's own protocol: the canonical request in, canonical events out. */
export const switchyardCodec: ProtocolCodec = {
  name: 'switchyard',
  decodeRequest: (body) => decodeRequest(body),
  encodeResponse: (response) => response,
  createStreamEncoder: () => new SwitchyardEncoder(),
  encodeError,
  namedEvents: true,
  conversationField: 'transcript',
};
