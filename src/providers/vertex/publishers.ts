/**
 * The one table of Vertex AI publishers: for each, which model names are its own, the wire protocol
 * Vertex serves them in and the endpoint a call goes to. Everything that routes a Vertex model (the
 * request path and body, the parser, the capabilities, the token estimate, the family tag) reads
 * it through {@link resolveModel}; a model of a publisher not listed is refused before any request.
 *
 * From Google Cloud's Vertex AI documentation: Gemini at `publishers/google/models/{m}:generateContent`
 * (`:streamGenerateContent?alt=sse`); Claude at `publishers/anthropic/models/{m}:rawPredict`
 * (`:streamRawPredict`) in Anthropic's Messages protocol; Mistral AI at
 * `publishers/mistralai/models/{m}:rawPredict` (`:streamRawPredict`) with Mistral's Chat Completions
 * body (`model` without its `@version`; `stream: true` for the stream); the open models served as
 * MaaS (Llama, DeepSeek, Qwen, gpt-oss) at the project's OpenAI-compatible
 * `endpoints/openapi/chat/completions`, the model named `{publisher}/{model}` in the body
 * (`meta/llama-3.3-70b-instruct-maas`).
 */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import { assertModelName, quoteModelName } from '../../core/model-name.ts';
import { type ChatQuirks, defaultQuirks, mergeQuirks } from '../openai-chat/quirks.ts';
import { presets } from '../openai-compatible/presets.ts';

/** The wire protocol of a publisher's models on Vertex: the codec that builds the body and reads the answer. */
export type VertexProtocol = 'gemini' | 'anthropic-messages' | 'openai-chat';

/** Where a publisher's calls go. */
export type VertexEndpoint =
  /** `/publishers/{publisher}/models/{model}:{method}`: the method of a whole answer, then of a stream. */
  | { kind: 'publisher-model'; methods: readonly [whole: string, stream: string] }
  /** The project's `/endpoints/openapi/chat/completions`, the model named `{publisher}/{model}` in the body. */
  | { kind: 'openapi'; path: string };

/** One publisher of Vertex's Model Garden that this adapter serves. */
export interface VertexPublisher {
  /** As Vertex spells it: `publishers/{id}/…`, `{id}/{model}` on the OpenAI-compatible endpoint. */
  id: string;
  /** Prefixes of its model names when given without `{id}/` (`claude-`); none for Google's (the default). */
  prefixes: readonly string[];
  protocol: VertexProtocol;
  endpoint: VertexEndpoint;
  /** For `openai-chat` publishers: the Chat Completions codec's quirks (what it sends, what it reads). */
  quirks?: ChatQuirks;
}

/**
 * Vertex's OpenAI-compatible endpoint for MaaS open models. Google lists its parameters for Gemini
 * and says third-party support "varies by model": `max_tokens` (which every listed model takes), no
 * `stream_options` (a stream's usage is what the model's server sends, else estimated with a WARN),
 * `reasoning_effort` only for gpt-oss. Model globs match `{publisher}/{model}`.
 */
const maasQuirks: ChatQuirks = {
  ...defaultQuirks,
  maxTokensField: 'max_tokens',
  streamOptions: false,
  reasoningEffortModels: ['*gpt-oss*'],
  models: {
    '*llama-4*': { images: true },
    '*llama-3.2-90b-vision*': { images: true },
    '*deepseek-r1*': { reasoning: true },
    '*gpt-oss*': { reasoning: true },
    '*-thinking*': { reasoning: true },
  },
};

const openapi: VertexEndpoint = { kind: 'openapi', path: '/endpoints/openapi/chat/completions' };
const rawPredict: VertexEndpoint = { kind: 'publisher-model', methods: ['rawPredict', 'streamRawPredict'] };

/** A MaaS publisher: its open models through the OpenAI-compatible endpoint. */
const maas = (id: string, prefixes: readonly string[]): VertexPublisher => ({
  id,
  prefixes,
  protocol: 'openai-chat',
  endpoint: openapi,
  quirks: maasQuirks,
});

/** The table; a bare name goes to the first row whose prefix it has, else to Google (the last row). */
export const vertexPublishers: readonly VertexPublisher[] = [
  { id: 'anthropic', prefixes: ['claude-'], protocol: 'anthropic-messages', endpoint: rawPredict },
  {
    id: 'mistralai',
    prefixes: ['mistral-', 'codestral-'],
    protocol: 'openai-chat',
    endpoint: rawPredict,
    // Mistral's own API behind Vertex: the Mistral host's quirks (9-character tool-call ids, no
    // `stream_options`), one row with the openai-compatible preset.
    quirks: mergeQuirks(defaultQuirks, presets.mistral.quirks),
  },
  maas('meta', ['llama']),
  maas('deepseek-ai', ['deepseek-']),
  maas('qwen', ['qwen']),
  maas('openai', ['gpt-oss-']),
  {
    id: 'google',
    prefixes: [],
    protocol: 'gemini',
    endpoint: { kind: 'publisher-model', methods: ['generateContent', 'streamGenerateContent?alt=sse'] },
  },
];

const byId = new Map(vertexPublishers.map((publisher) => [publisher.id, publisher]));
const google = byId.get('google')!;

/** A Vertex model name resolved against the table. */
export interface VertexModel {
  publisher: VertexPublisher;
  /** The model within its publisher (`llama-3.3-70b-instruct-maas`, `claude-sonnet-4-5@20250929`). */
  name: string;
}

/** The publisher and model of a valid name, or `undefined` for a publisher the table does not have. */
export function findModel(model: string): VertexModel | undefined {
  const slash = model.indexOf('/');
  if (slash < 0) {
    const owner = vertexPublishers.find((row) => row.prefixes.some((prefix) => model.startsWith(prefix)));
    return { publisher: owner ?? google, name: model };
  }
  const publisher = byId.get(model.slice(0, slash));
  return publisher === undefined ? undefined : { publisher, name: model.slice(slash + 1) };
}

/**
 * Resolves a wire model name: checked against the `vertex` grammar first (`invalid_model_name`:
 * at most one `/`, after a publisher id; nothing that could step out of a URL path segment), then
 * against the table: a publisher it does not have is an `InvalidRequestError` (`unsupported_model`)
 * naming the model and what is served, before any request.
 */
export function resolveModel(model: string, provider = 'vertex'): VertexModel {
  assertModelName(model, 'vertex', provider);
  const found = findModel(model);
  if (found !== undefined) return found;
  throw new InvalidRequestError({
    message: `${provider}: model ${quoteModelName(model)} is from a Vertex publisher this adapter does not serve; it serves ${servedPublishers()}`,
    provider,
    providerCode: 'unsupported_model',
  });
}

/**
 * Express mode (an API key, no project) serves Google's own models only: Google documents it for
 * Gemini, and the partner models' endpoints (rawPredict, the MaaS OpenAI-compatible endpoint) live
 * under a project and location. Why `model` is not served there (naming express mode), or
 * `undefined` for a Google model.
 */
export function expressRefusal(
  model: VertexModel,
  wireModel: string,
  provider = 'vertex',
): string | undefined {
  if (model.publisher === google) return undefined;
  return `${provider}: model ${quoteModelName(wireModel)} (publisher ${model.publisher.id}) is not served in express mode (an API key without a project), which serves Google's Gemini models only; set a project (GOOGLE_CLOUD_PROJECT) and a location, with getAccessToken or Application Default Credentials, to reach ${model.publisher.id}'s models`;
}

/**
 * {@link expressRefusal} as an `InvalidRequestError` (`unsupported_model`), before any request: the
 * key is never sent to a partner model's endpoint.
 */
export function assertExpressServes(model: VertexModel, wireModel: string, provider = 'vertex'): void {
  const message = expressRefusal(model, wireModel, provider);
  if (message === undefined) return;
  throw new InvalidRequestError({ message, provider, providerCode: 'unsupported_model' });
}

/** What the table serves, for an error message. */
function servedPublishers(): string {
  const named = (protocol: VertexProtocol, kind: VertexEndpoint['kind']) =>
    vertexPublishers
      .filter((row) => row.protocol === protocol && row.endpoint.kind === kind)
      .map((row) => row.id)
      .join(', ');
  return (
    `google (Gemini) and anthropic (Claude), named bare or as publisher/model; ` +
    `${named('openai-chat', 'publisher-model')} through rawPredict; ` +
    `and the open (MaaS) models of ${named('openai-chat', 'openapi')} through the OpenAI-compatible endpoint, ` +
    `named publisher/model (meta/llama-3.3-70b-instruct-maas)`
  );
}

/** The family of a model's parts (`vertex/{publisher}`): the publisher, or the unknown one it names. */
export function publisherOf(model: string): string {
  return findModel(model)?.publisher.id ?? model.slice(0, model.indexOf('/'));
}
