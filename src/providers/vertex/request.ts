/**
 * Canonical request → Vertex request. Gemini models: the Gemini codec's body, at
 * `/publishers/google/models/{m}:generateContent` (or `:streamGenerateContent?alt=sse`). Claude
 * models: the Anthropic codec's body without `model`, with `anthropic_version: vertex-2023-10-16`, at
 * `/publishers/anthropic/models/{m}:rawPredict` (or `:streamRawPredict`, `stream: true` kept).
 */
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { buildRequest as buildAnthropicRequest } from '../anthropic/request.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import { buildRequest as buildGeminiRequest } from '../gemini/request.ts';
import { vertexAnthropicVersion } from './api.ts';
import { modelPath, publisherOf } from './model-id.ts';
import type { VertexProviderOptions } from './options.ts';

export { convertMessages } from '../gemini/request.ts';
export { convertTools } from '../gemini/request.ts';

/** Settings of the Gemini codec on Vertex: full JSON Schema where the model takes it. */
const geminiSettings = { useJsonSchema: 'auto' as const };

function extraBody(request: CanonicalRequest): JsonObject {
  const options = request.providerOptions?.vertex as VertexProviderOptions | undefined;
  return typeof options?.body === 'object' && options.body !== null ? options.body : {};
}

/** Builds the request of one call, by the model's publisher. */
export function buildRequest(request: CanonicalRequest, context: ProviderContext): WireRequest {
  const path = modelPath(context.model, context);
  if (publisherOf(context.model) === 'anthropic') {
    const wire = buildAnthropicRequest(request, context);
    const { model: _model, ...rest } = wire.body;
    const method = context.stream ? 'streamRawPredict' : 'rawPredict';
    return {
      path: `${path}:${method}`,
      body: { anthropic_version: vertexAnthropicVersion, ...rest, ...extraBody(request) },
      ...(wire.headers === undefined ? {} : { headers: wire.headers }),
    };
  }
  const wire = buildGeminiRequest(request, context, geminiSettings);
  const method = wire.path.slice(wire.path.lastIndexOf(':'));
  return { path: `${path}${method}`, body: { ...wire.body, ...extraBody(request) } };
}
