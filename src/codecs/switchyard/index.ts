/**
 * Switchyard's own protocol, inbound only (`POST /switchyard/v1/stream` and the WebSocket): the
 * canonical request as it is (a model name, transcript, tools, …), the canonical events out, one
 * SSE frame per event named by its type; errors in OpenAI's shape. No provider speaks it, so it is
 * not among the codecs the emulator writes.
 */
import { validateRouteRequest } from '../../core/request-schema.ts';
import { RequestFieldError } from '../fields.ts';
import { createFrame } from '../frames.ts';
import { encodeError } from '../openai-chat/errors.ts';
import type { DecodedRequest, ProtocolCodec, StreamEncoder } from '../types.ts';

/** Canonical events as they are: one frame per event, named by its type. */
const streamEncoder: StreamEncoder = {
  event: (event) => [createFrame(event, event.type)],
  error: (error) => [createFrame({ type: 'error', error }, 'error')],
  started: true,
};

/** The front door's own validation, so that a refusal names the request's path before any state is read. */
function decodeRequest(body: unknown): DecodedRequest {
  const parsed = validateRouteRequest(body);
  if (!parsed.ok) {
    const [issue] = parsed.issues;
    const field = issue?.path === undefined || issue.path === '' ? 'request' : issue.path;
    throw new RequestFieldError(field, `${field}: ${issue?.message ?? 'invalid request'}`);
  }
  const { model, ...request } = parsed.value;
  return { model, stream: true, request: request as DecodedRequest['request'] };
}

export const switchyardCodec: ProtocolCodec = {
  name: 'switchyard',
  decodeRequest: (body) => decodeRequest(body),
  encodeResponse: (response) => response,
  createStreamEncoder: () => streamEncoder,
  encodeError,
  namedEvents: true,
  conversationField: 'transcript',
};
