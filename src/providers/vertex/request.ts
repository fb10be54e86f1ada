/**
 * Canonical request → Vertex request, by the model's publisher (`publishers.ts`). Gemini: the
 * Gemini codec's body at `/publishers/google/models/{m}:generateContent` (or
 * `:streamGenerateContent?alt=sse`). Claude: the Anthropic codec's body without `model`, with
 * `anthropic_version: vertex-2023-10-16`, at `/publishers/anthropic/models/{m}:rawPredict` (or
 * `:streamRawPredict`, `stream: true` kept); an http(s) URL image or document is left out with a
 * WARN (Vertex fetches none). Mistral AI and the MaaS open models: the Chat
 * Completions codec's body (`chat-completions.ts`).
 */
import type { CanonicalRequest } from '../../core/request.ts';
import {
  callFields as anthropicFields,
  buildRequest as buildAnthropicRequest,
} from '../anthropic/request.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import { callFields as geminiFields, buildRequest as buildGeminiRequest } from '../gemini/request.ts';
import { callFields as chatFields } from '../openai-chat/request.ts';
import { checkPassThrough, withoutStreamFields } from '../common/pass-through.ts';
import { vertexAnthropicVersion } from './api.ts';
import * as chat from './chat-completions.ts';
import { codecContext, modelPath } from './model-id.ts';
import { readProviderOptions } from './options.ts';
import { assertExpressServes, resolveModel, type VertexModel } from './publishers.ts';

export { convertMessages } from '../gemini/request.ts';
export { convertTools } from '../gemini/request.ts';

/** Settings of the Gemini codec on Vertex: full JSON Schema where the model takes it. */
const geminiSettings = { useJsonSchema: 'auto' as const };

/** The method of a publisher-model endpoint (a whole answer or a stream), from the table. */
function method(model: VertexModel, stream: boolean): string {
  const { endpoint } = model.publisher;
  if (endpoint.kind !== 'publisher-model')
    throw new TypeError(`vertex: ${model.publisher.id} has no model path`);
  return endpoint.methods[stream ? 1 : 0];
}

/** How the adapter reaches Vertex, as far as building a request cares. */
export interface VertexRequestSettings {
  /** Express mode (an API key, no project): Gemini only, any other publisher refused. */
  express?: boolean;
}

/** Builds the request of one call, by the model's publisher. */
export function buildRequest(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: VertexRequestSettings = {},
): WireRequest {
  const model = resolveModel(context.model, context.provider);
  if (settings.express === true) assertExpressServes(model, context.model, context.provider);
  const { protocol } = model.publisher;
  const options = readProviderOptions(request).body;
  const extra = options === undefined ? undefined : withoutStreamFields(options);
  // The body's fields that say what the call is are the request's own, whichever protocol serves it.
  const callFields =
    protocol === 'openai-chat'
      ? chatFields
      : protocol === 'anthropic-messages'
        ? anthropicFields
        : geminiFields;
  checkPassThrough(options, callFields, 'providerOptions.vertex.body', context);
  if (protocol === 'openai-chat') return chat.buildRequest(request, context, model);
  const path = `${modelPath(model)}:${method(model, context.stream)}`;
  if (protocol === 'anthropic-messages') {
    // Claude on Vertex fetches no http(s) URL: such media are left out with a WARN, as toward Bedrock.
    const claude = { ...codecContext(context, model.name), session: context.session, urlSources: false };
    const wire = buildAnthropicRequest(request, claude);
    const { model: _model, ...rest } = wire.body;
    return {
      path,
      body: { anthropic_version: vertexAnthropicVersion, ...rest, ...extra },
      ...(wire.headers === undefined ? {} : { headers: wire.headers }),
    };
  }
  const wire = buildGeminiRequest(request, codecContext(context, model.name), geminiSettings);
  return { path, body: { ...wire.body, ...extra } };
}
