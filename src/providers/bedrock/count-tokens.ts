/**
 * Bedrock's token counting (`POST /model/{modelId}/count-tokens`, CountTokens, free; SigV4-signed
 * as every call, on the generation's host): a Converse request's `messages`, `system`, `toolConfig`
 * and `additionalModelRequestFields` as `input.converse`, or the InvokeModel body, base64, as
 * `input.invokeModel.body`; the answer is `{ "inputTokens": n }`. AWS counts Claude models only,
 * and by their foundation-model id (an inference profile's region prefix is dropped); other
 * families are estimated locally. A Claude model it does not count answers a `ValidationException`
 * ("… doesn't support counting tokens"): remembered as an absent endpoint (`refusesModel`).
 */
import type { AdapterError } from '../../core/errors/adapter-error.ts';
import { isJsonObject, type JsonObject, pickFields } from '../../core/json.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import { baseModelId, familyOf } from './capabilities.ts';
import { modelPath } from './model-id.ts';

/** The Converse fields CountTokens takes (its `ConverseTokensRequest`). */
const countedFields: ReadonlySet<string> = new Set([
  'messages',
  'system',
  'toolConfig',
  'additionalModelRequestFields',
]);

/** The generation's `/converse` or `/invoke` request → its `/count-tokens` request; `undefined` for a model not Claude. */
export function buildCountRequest(wire: WireRequest, context: ProviderContext): WireRequest | undefined {
  if (familyOf(context.model) !== 'anthropic') return undefined;
  const path = `/model/${modelPath(baseModelId(context.model), context)}/count-tokens`;
  const invoking = /\/invoke(?:-with-response-stream)?$/.test(wire.path);
  const input: JsonObject = invoking
    ? { invokeModel: { body: Buffer.from(JSON.stringify(wire.body)).toString('base64') } }
    : { converse: pickFields(wire.body, countedFields) };
  return { ...wire, path, body: { input } };
}

/** `{ "inputTokens": n }` → n. */
export function parseTokenCount(body: unknown): number | undefined {
  const tokens = isJsonObject(body) ? body.inputTokens : undefined;
  return typeof tokens === 'number' ? tokens : undefined;
}

/** A `ValidationException` saying the model is not counted: the endpoint is absent for it. */
export function refusesModel(error: AdapterError): boolean {
  return (
    error.status === 400 && /support(?:s)? counting tokens/i.test(error.providerMessage ?? error.message)
  );
}
