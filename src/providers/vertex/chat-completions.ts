/**
 * The Vertex publishers that speak OpenAI's Chat Completions — Mistral AI through `rawPredict`, the
 * MaaS open models through the project's OpenAI-compatible endpoint — with the Chat Completions
 * codec (request body, response body, stream parser, capabilities) and the publisher's quirks from
 * the table (`publishers.ts`), over Vertex's transport (the project endpoint, OAuth).
 */
import type { Capabilities } from '../../core/capabilities.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext, StreamParser, WireRequest } from '../common/definition.ts';
import { createCapabilityResolver } from '../openai-chat/capabilities.ts';
import { buildRequest as buildChatRequest } from '../openai-chat/request.ts';
import { parseResponse as parseChatResponse } from '../openai-chat/response.ts';
import { createStreamParser as createChatParser } from '../openai-chat/stream.ts';
import type { ChatQuirks } from '../openai-chat/quirks.ts';
import { codecContext, modelPath } from './model-id.ts';
import { readProviderOptions } from './options.ts';
import type { VertexModel } from './publishers.ts';

function quirksOf(model: VertexModel): ChatQuirks {
  const { quirks } = model.publisher;
  if (quirks === undefined) throw new TypeError(`vertex: publisher ${model.publisher.id} has no chat quirks`);
  return quirks;
}

/**
 * The body's `model`: `{publisher}/{model}` on the OpenAI-compatible endpoint
 * (`meta/llama-3.3-70b-instruct-maas`); at a publisher's own path, the model without its `@version`
 * (`mistral-medium-3`), which the path already names.
 */
export function chatModelName(model: VertexModel): string {
  return model.publisher.endpoint.kind === 'openapi'
    ? `${model.publisher.id}/${model.name}`
    : model.name.replace(/@.*$/, '');
}

/** The path of one call: the endpoint of the publisher's row. */
function pathOf(model: VertexModel, stream: boolean): string {
  const { endpoint } = model.publisher;
  if (endpoint.kind === 'openapi') return endpoint.path;
  return `${modelPath(model)}:${endpoint.methods[stream ? 1 : 0]}`;
}

/** `providerOptions.vertex.body` is what the Chat codec merges last (it reads `providerOptions[provider]`). */
function codecRequest(request: CanonicalRequest, provider: string): CanonicalRequest {
  const options = request.providerOptions;
  if (options?.[provider] === undefined) return request;
  const body = readProviderOptions(request).body;
  const rest = Object.fromEntries(Object.entries(options).filter(([name]) => name !== provider));
  return { ...request, providerOptions: body === undefined ? rest : { ...rest, [provider]: body } };
}

/** Builds the Chat Completions request of one call at the publisher's endpoint. */
export function buildRequest(
  request: CanonicalRequest,
  context: ProviderContext,
  model: VertexModel,
): WireRequest {
  const quirks = quirksOf(model);
  const wire = buildChatRequest(
    codecRequest(request, context.provider),
    codecContext(context, chatModelName(model)),
    { quirks, strictTools: false },
  );
  return { path: pathOf(model, context.stream), body: wire.body };
}

/** A whole Chat Completions body into builder calls. */
export function parseResponse(
  body: unknown,
  context: ProviderContext,
  builder: StreamBuilder,
  model: VertexModel,
): void {
  parseChatResponse(body, codecContext(context, chatModelName(model)), builder, quirksOf(model));
}

/** The Chat Completions SSE parser of one stream. */
export function createStreamParser(
  context: ProviderContext,
  builder: StreamBuilder,
  model: VertexModel,
): StreamParser {
  return createChatParser(codecContext(context, chatModelName(model)), builder, quirksOf(model));
}

const resolvers = new Map<ChatQuirks, (model: string) => Capabilities>();

/** The capabilities of a Chat Completions publisher's model: its quirks' table, by the body's model name. */
export function capabilitiesFor(model: VertexModel): Capabilities {
  const quirks = quirksOf(model);
  let resolver = resolvers.get(quirks);
  if (resolver === undefined) resolvers.set(quirks, (resolver = createCapabilityResolver(quirks)));
  return resolver(chatModelName(model));
}
