/**
 * Claude on Bedrock through InvokeModel / `invoke-with-response-stream`: the Anthropic Messages codec
 * (request body, response body, stream parser) over Bedrock's transport. The body has no `model`
 * and no `stream` (both are in the path) and carries `anthropic_version: bedrock-2023-05-31`
 * (betas as `anthropic_beta`); each stream event arrives as an event-stream `chunk` whose payload
 * `{"bytes": "<base64>"}` holds one Anthropic event JSON.
 */
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { buildRequest as buildAnthropicRequest } from '../anthropic/request.ts';
import { parseResponse as parseAnthropicResponse } from '../anthropic/response.ts';
import { createStreamParser as createAnthropicParser } from '../anthropic/stream.ts';
import type { ProviderContext, StreamParser, WireRequest } from '../common/definition.ts';
import { baseModelId, familyOf } from './capabilities.ts';
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import { quoteModelName } from '../../core/model-name.ts';
import { convertErrorBody } from './errors.ts';
import { modelPath } from './model-id.ts';
import { SkipWarnings } from './reader.ts';
import { eventName, exceptionPrefix, failWithException } from './stream.ts';
import { parseJson } from '../../core/json-text.ts';

/** The `anthropic_version` Bedrock requires in the body. */
export const bedrockAnthropicVersion = 'bedrock-2023-05-31';

/** `us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5-20250929` (the codec's model facts). */
export function anthropicModelName(model: string): string {
  return baseModelId(model)
    .replace(/^anthropic\./, '')
    .replace(/-v\d+(?::\d+)?$/, '');
}

/**
 * The context the Anthropic codec sees: the Claude model name instead of the Bedrock id. The
 * runtime's context reads its session through a getter on its class (made on first use), which a
 * spread does not copy: it is carried over by name.
 */
function codecContext(context: ProviderContext): ProviderContext {
  return { ...context, session: context.session, model: anthropicModelName(context.model) };
}

/**
 * Moves what the Messages API sends elsewhere into Bedrock's body: `model` and `stream` leave (the
 * path says both), `anthropic_version` joins, beta flags become `anthropic_beta`.
 */
export function convertInvokeBody(wire: WireRequest, version: string): JsonObject {
  const { model: _model, stream: _stream, ...rest } = wire.body;
  const body: JsonObject = { anthropic_version: version, ...rest };
  const betas = wire.headers?.['anthropic-beta'];
  if (betas !== undefined && betas !== '') body.anthropic_beta = betas.split(',');
  return body;
}

/**
 * Why InvokeModel with the Anthropic body cannot serve `model`: a model of another vendor (Nova,
 * Llama, …, which answer that body with a 400), or `undefined` for Claude and for an id that names
 * no vendor (an application inference profile, which may be Claude's).
 */
export function invokeRefusal(model: string, provider = 'bedrock'): string | undefined {
  if (!baseModelId(model).includes('.')) return undefined;
  const family = familyOf(model);
  if (family === 'anthropic') return undefined;
  return `${provider}: model ${quoteModelName(model)} is not served by protocol 'invoke', which sends Claude models only (the Anthropic Messages body); use protocol 'converse' for ${quoteModelName(family)}'s models`;
}

/**
 * Builds `POST /model/{modelId}/invoke` (or `/invoke-with-response-stream`); a model of another
 * vendor than Anthropic is refused first (`unsupported_model`, {@link invokeRefusal}). Bedrock fetches no
 * http(s) URL (as Converse, and Claude on Vertex): such an image or document is left out with a
 * WARN (`urlSources: false`) instead of a `url` source Bedrock refuses.
 */
export function buildRequest(request: CanonicalRequest, context: ProviderContext): WireRequest {
  const refusal = invokeRefusal(context.model, context.provider);
  if (refusal !== undefined)
    throw new InvalidRequestError({
      message: refusal,
      provider: context.provider,
      providerCode: 'unsupported_model',
    });
  const wire = buildAnthropicRequest(request, { ...codecContext(context), urlSources: false });
  const operation = context.stream ? 'invoke-with-response-stream' : 'invoke';
  return {
    path: `/model/${modelPath(context.model, context)}/${operation}`,
    body: convertInvokeBody(wire, bedrockAnthropicVersion),
  };
}

/** A whole InvokeModel body: a Messages response, or a Bedrock error body. */
export function parseResponse(body: unknown, context: ProviderContext, builder: StreamBuilder): void {
  if (isJsonObject(body) && body.type === undefined && body.content === undefined) {
    const error = convertErrorBody(body);
    if (error !== undefined) context.fail(error);
  }
  parseAnthropicResponse(body, codecContext(context), builder);
}

/**
 * The stream parser: each `chunk` event's `bytes` decoded from base64 and handed to the Anthropic
 * parser; exception messages are the classified error; other event types are skipped with a WARN
 * (each kind once per response).
 */
export function createStreamParser(context: ProviderContext, builder: StreamBuilder): StreamParser {
  const inner = createAnthropicParser(codecContext(context), builder);
  const warnings = new SkipWarnings(context);
  return {
    onEvent(event, data) {
      if (event?.startsWith(exceptionPrefix) === true) failWithException(context, event, data);
      if (event !== 'chunk') {
        warnings.skip('skipped unexpected stream content', `an event of type ${eventName(event)}`);
        return;
      }
      const payload: unknown = parseJson(data);
      const bytes = isJsonObject(payload) ? payload.bytes : undefined;
      if (typeof bytes !== 'string') {
        warnings.skip('skipped unexpected stream content', 'a chunk without bytes');
        return;
      }
      inner.onEvent(undefined, Buffer.from(bytes, 'base64').toString('utf8'));
    },
    onEnd: () => inner.onEnd(),
    isComplete: () => inner.isComplete?.() === true,
    // Bedrock ends the stream with Claude's `message_stop` (carrying its invocation metrics) and
    // concatenates no further message: nothing after it is waited for.
    isTerminated: () => inner.isComplete?.() === true,
  };
}
