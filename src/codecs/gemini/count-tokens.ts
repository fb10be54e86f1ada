/**
 * The body of Gemini's `:countTokens`: `contents` (top-level), or `generateContentRequest` — a whole
 * generation request (its `systemInstruction` and `tools` counted too), which `@google/generative-ai`
 * always sends. Google's API takes either, never both.
 */
import { bodyObject, jsonObject, optionalString, RequestFieldError, shown } from '../fields.ts';

/**
 * The generation request to count: the body itself, or its `generateContentRequest`. The model is
 * the path's (`pathModel`): the inner `model` (`models/{name}`) may only repeat it — one naming
 * another model is a 400, so the key's model check and the count always concern the same model.
 */
export function countTokensBody(body: unknown, pathModel: string | undefined): unknown {
  const object = bodyObject(body);
  const inner = object.generateContentRequest;
  if (inner === undefined || inner === null) return body;
  // An empty `contents` is unset in Google's JSON (a proto3 repeated field): only a non-empty one clashes.
  const contents = object.contents;
  if (contents !== undefined && contents !== null && !(Array.isArray(contents) && contents.length === 0))
    throw new RequestFieldError(
      'generateContentRequest',
      'contents and generateContentRequest are mutually exclusive: send one of them',
    );
  const request = jsonObject(inner, 'generateContentRequest');
  const model = optionalString(request, 'model', 'generateContentRequest.model');
  if (model !== undefined && model !== '' && model.replace(/^models\//, '') !== pathModel)
    throw new RequestFieldError(
      'generateContentRequest.model',
      `generateContentRequest.model '${shown(model)}' names another model than the path's '${shown(pathModel ?? '')}'`,
    );
  return request;
}

/**
 * Decodes a `:countTokens` body with `decode` (the Gemini codec's `decodeRequest`): the request
 * {@link countTokensBody} finds in it, an error inside a `generateContentRequest` naming its field
 * there (`generateContentRequest.contents`, not `contents`), in `field` and in the message.
 */
export function decodeCountTokens<T>(
  body: unknown,
  pathModel: string | undefined,
  decode: (request: unknown) => T,
): T {
  const request = countTokensBody(body, pathModel);
  if (request === body) return decode(request);
  try {
    return decode(request);
  } catch (error) {
    if (!(error instanceof RequestFieldError)) throw error;
    const field = `${wrapper}.${error.field}`;
    const message = error.message.startsWith(error.field) ? `${wrapper}.${error.message}` : error.message;
    const options: { status: number; details?: Record<string, unknown> } = { status: error.status };
    if (error.details !== undefined) options.details = error.details;
    throw new RequestFieldError(field, message, error.reason, options);
  }
}

const wrapper = 'generateContentRequest';
