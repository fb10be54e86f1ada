/**
 * The stored-Responses routes the OpenAI SDKs call besides `POST /v1/responses`: `GET
 * /v1/responses/{id}` (`responses.retrieve`), `DELETE /v1/responses/{id}` (`responses.delete`) and
 * `GET /v1/responses/{id}/input_items` (`responses.inputItems.list`). Each reads the caller's own
 * stored reply (`stored-responses.ts`); what is not there for the caller is a 404 naming the id.
 * Unknown query parameters are ignored, as unknown body fields are; `include` is ignored too (the
 * reply is returned as it was sent).
 */
import { RequestFieldError, shown } from '../codecs/fields.ts';
import { toWireError } from './errors.ts';
import { errorResponse, requestIdHeaders } from './reply.ts';
import type { GatewayState } from './state.ts';
import { deleteStoredReply, readStoredReply } from './stored-responses.ts';

/** One request to a stored response: its id (from the path), the caller's key scope, its query. */
export interface StoredResponseRequest {
  id: string;
  scope: string;
  requestId: string;
  query: (name: string) => string | undefined;
}

/** A 200 with a JSON text, in the Responses protocol's headers. */
function jsonReply(text: string, requestId: string): Response {
  return new Response(text, {
    status: 200,
    headers: { 'content-type': 'application/json', ...requestIdHeaders('openai-responses', requestId) },
  });
}

/** Runs a route's work, its failures answered in OpenAI's error shape. */
async function answer(request: StoredResponseRequest, work: () => Promise<string>): Promise<Response> {
  try {
    return jsonReply(await work(), request.requestId);
  } catch (error) {
    return errorResponse('openai-responses', toWireError(error), request.requestId);
  }
}

/**
 * `GET /v1/responses/{id}`: the Responses object exactly as the create call returned it (its body,
 * or its stream's `response.completed` object). `stream=true` replays a background response's
 * events, and the gateway serves none: refused by name, not answered with JSON the client would
 * not parse as a stream.
 */
export function retrieveResponse(state: GatewayState, request: StoredResponseRequest): Promise<Response> {
  return answer(request, async () => {
    const stream = request.query('stream');
    if (stream !== undefined && stream !== 'false')
      throw new RequestFieldError(
        'stream',
        'stream: streaming a stored response is for background responses, which the gateway does not serve',
        'unsupported',
      );
    return (await readStoredReply(state.store, request.scope, request.id)).response;
  });
}

/** `DELETE /v1/responses/{id}`: OpenAI's deletion object; the id is a 404 everywhere from then on. */
export function deleteResponse(state: GatewayState, request: StoredResponseRequest): Promise<Response> {
  return answer(request, async () => {
    await deleteStoredReply(state, request.scope, request.id);
    return JSON.stringify({ id: request.id, object: 'response', deleted: true });
  });
}

/** `limit`'s range and default, as OpenAI's list endpoints take it. */
const limits = { min: 1, max: 100, default: 20 };

/**
 * `GET /v1/responses/{id}/input_items`: the request's input items, a cursor page of them —
 * `order` (`desc` by default: the last item first), `limit` (1–100, 20 by default), `after` and
 * `before` (an item id of the list, exclusive).
 */
export function listResponseInputItems(
  state: GatewayState,
  request: StoredResponseRequest,
): Promise<Response> {
  return answer(request, async () => {
    const order = request.query('order') ?? 'desc';
    if (order !== 'asc' && order !== 'desc')
      throw new RequestFieldError('order', `order: expected 'asc' or 'desc', got '${shown(order)}'`);
    const limitText = request.query('limit');
    const limit =
      limitText === undefined ? limits.default : /^\d{1,3}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= limits.min && limit <= limits.max))
      throw new RequestFieldError('limit', `limit: expected an integer from ${limits.min} to ${limits.max}`);
    const { input } = await readStoredReply(state.store, request.scope, request.id);
    const items = order === 'asc' ? input : input.toReversed();
    const place = (field: 'after' | 'before') => {
      const id = request.query(field);
      if (id === undefined) return undefined;
      const index = items.findIndex((item) => item.id === id);
      if (index === -1)
        throw new RequestFieldError(
          field,
          `${field}: no input item of this response has the id '${shown(id)}'`,
        );
      return index;
    };
    const start = (place('after') ?? -1) + 1;
    const end = place('before') ?? items.length;
    const data = items.slice(start, Math.min(end, start + limit));
    return JSON.stringify({
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: start + limit < end,
    });
  });
}
