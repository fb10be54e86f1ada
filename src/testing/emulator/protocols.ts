/**
 * The emulator's table of wire protocols: per protocol its endpoint, how it streams, how a recorded
 * file is framed, its model listing, its request rules and its error bodies. Routing, replay, rules
 * and error builders read this table; nothing else in the emulator switches on protocol names.
 */
import {
  anthropicErrors,
  bedrockErrors,
  googleErrors,
  openaiErrors,
  type ResponseErrorClass,
  vertexAnthropicErrors,
} from './error-bodies.ts';
import type { ResponsePlan } from './frames.ts';
import {
  asksForStream,
  isConversePath,
  isGeminiGeneratePath,
  isInvokePath,
  isVertexAnthropicPath,
  isVertexMistralPath,
} from './request-fields.ts';
import { checkConverseRequest, checkInvokeRequest } from './rules/bedrock.ts';
import { checkGoogleCredentials, checkVertexAnthropicRequest } from './rules/vertex.ts';
import { checkAnthropicRequest } from './rules/anthropic.ts';
import { checkGeminiBody, checkGeminiRequest } from './rules/gemini.ts';
import { checkHostRules } from './rules/hosts.ts';
import { checkBearer, checkChatRequest } from './rules/openai.ts';
import { checkResponsesRequest, rememberResponse, type ResponsesStore } from './rules/openai-responses.ts';
import type { EmulatorProtocolId, EmulatorScript, JsonScript, RecordedRequest } from './types.ts';

/** How the emulator serves one wire protocol. */
export interface EmulatorProtocol {
  /** Whether `path` is this protocol's generation endpoint (by suffix, so base-URL prefixes work). */
  matchesEndpoint(path: string): boolean;
  /** For the shared `GET …/models`: whether the path or credentials are this protocol's. */
  ownsModelListing?(request: Pick<RecordedRequest, 'path' | 'headers' | 'query'>): boolean;
  /** Recorded-fixture folders in this protocol (the file's own folder or the one above). */
  fixtureFolders: readonly string[];
  /** Whether the request asks for a streamed answer. */
  isStreaming(request: Pick<RecordedRequest, 'path' | 'body'>): boolean;
  /**
   * Streams go out as AWS event-stream messages (Bedrock) rather than SSE; replayed `.chunks.txt`
   * lines are `{"<eventType>": payload}` (`converse`) or Anthropic events wrapped in `chunk` frames.
   */
  eventStream?: 'converse' | 'chunk';
  /** Whether a streamed answer goes out as one JSON array rather than SSE. */
  streamsJsonArray(request: Pick<RecordedRequest, 'path' | 'body' | 'query'>): boolean;
  /** Replayed `.chunks.txt` lines get `event: <payload.type>`. */
  namedEvents: boolean;
  /** Replayed `.chunks.txt` end with this `data:` frame. */
  doneData?: string;
  /** The body of `GET …/models`. */
  modelList(): unknown;
  /** The provider's request rules: the error response of the first violation, else `undefined`. */
  checkRules(
    request: RecordedRequest,
    script: EmulatorScript,
    responses: ResponsesStore,
  ): JsonScript | undefined;
  /** Keeps what a stateful protocol needs of an answered request. */
  remember?(responses: ResponsesStore, request: RecordedRequest, plan: ResponsePlan): void;
  /** A realistic error response per class. */
  errors: Record<ResponseErrorClass, () => JsonScript>;
  /**
   * The protocol's token-count endpoint, answered without a script (`builtin.ts`): whether `path`
   * is it, and its answer for a count.
   */
  countEndpoint?: { matches(path: string): boolean; reply(tokens: number): unknown };
}

const anthropicModels = [
  { id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-15T00:00:00Z' },
];
const openaiModels = ['gpt-4.1-nano-2025-04-14', 'gpt-5-mini-2025-08-07'];
const geminiModels = [
  { id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash' },
  { id: 'gemini-3-pro-preview', displayName: 'Gemini 3 Pro Preview' },
];

function openaiModelList(): unknown {
  const data = openaiModels.map((id) => ({
    id,
    object: 'model',
    created: 1_744_316_542,
    owned_by: 'system',
  }));
  return { object: 'list', data };
}

function geminiModelList(): unknown {
  const models = geminiModels.map((model) => ({
    name: `models/${model.id}`,
    version: '001',
    displayName: model.displayName,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: [
      'generateContent',
      'countTokens',
      'createCachedContent',
      'batchGenerateContent',
    ],
    temperature: 1,
    topP: 0.95,
    topK: 64,
    maxTemperature: 2,
    thinking: true,
  }));
  return { models };
}

const bodyStream = {
  isStreaming: asksForStream,
  streamsJsonArray: () => false,
};

/** Bedrock's CountTokens, one endpoint for Converse and InvokeModel input (`input.converse` / `input.invokeModel`). */
const bedrockCountEndpoint: EmulatorProtocol['countEndpoint'] = {
  matches: (path) => /\/model\/[^/]+\/count-tokens$/.test(path),
  reply: (tokens) => ({ inputTokens: tokens }),
};

/** The protocols, in the order `emulatorProtocolIds` lists them. */
export const emulatorProtocols: { readonly [Api in EmulatorProtocolId]: EmulatorProtocol } = {
  'anthropic-messages': {
    matchesEndpoint: (path) => path.endsWith('/messages'),
    ownsModelListing: ({ headers }) => 'anthropic-version' in headers || 'x-api-key' in headers,
    fixtureFolders: ['anthropic'],
    ...bodyStream,
    namedEvents: true,
    modelList: () => {
      const data = anthropicModels.map((model) => ({ type: 'model', ...model }));
      return { data, has_more: false, first_id: data[0]?.id, last_id: data.at(-1)?.id };
    },
    checkRules: (request) => checkAnthropicRequest(request),
    errors: anthropicErrors,
    countEndpoint: {
      matches: (path) => path.endsWith('/messages/count_tokens'),
      reply: (tokens) => ({ input_tokens: tokens }),
    },
  },
  'openai-chat': {
    // Vertex serves it twice more: the MaaS open models at `…/endpoints/openapi/chat/completions`,
    // Mistral AI at `…/publishers/mistralai/models/{m}:rawPredict` / `:streamRawPredict`.
    matchesEndpoint: (path) => path.endsWith('/chat/completions') || isVertexMistralPath(path),
    fixtureFolders: [],
    ...bodyStream,
    namedEvents: false,
    doneData: '[DONE]',
    modelList: openaiModelList,
    checkRules: (request, script) =>
      (script.allowNoAuth ? undefined : checkBearer(request)) ??
      checkChatRequest(request) ??
      checkHostRules(request),
    errors: openaiErrors,
  },
  'openai-responses': {
    matchesEndpoint: (path) => path.endsWith('/responses'),
    fixtureFolders: ['responses'],
    ...bodyStream,
    namedEvents: true,
    modelList: openaiModelList,
    checkRules: (request, script, responses) =>
      (script.allowNoAuth ? undefined : checkBearer(request)) ?? checkResponsesRequest(request, responses),
    remember: rememberResponse,
    errors: openaiErrors,
    countEndpoint: {
      matches: (path) => path.endsWith('/responses/input_tokens'),
      reply: (tokens) => ({ object: 'response.input_tokens', input_tokens: tokens }),
    },
  },
  gemini: {
    matchesEndpoint: isGeminiGeneratePath,
    ownsModelListing: ({ path, headers, query }) =>
      path.includes('/v1beta/') || 'x-goog-api-key' in headers || 'key' in query,
    fixtureFolders: ['google'],
    isStreaming: (request) => request.path.endsWith(':streamGenerateContent'),
    streamsJsonArray: (request) =>
      request.path.endsWith(':streamGenerateContent') && request.query.alt !== 'sse',
    namedEvents: false,
    modelList: geminiModelList,
    checkRules: (request) =>
      // Vertex (`…/publishers/google/models/…`): OAuth or an express key, then the same body rules.
      request.path.includes('/publishers/google/')
        ? (checkGoogleCredentials(request) ?? checkGeminiBody(request))
        : checkGeminiRequest(request),
    errors: googleErrors,
    // Gemini's and Vertex's (`…/publishers/google/models/{m}:countTokens`).
    countEndpoint: {
      matches: (path) => /\/models\/[^/:]+:countTokens$/.test(path),
      reply: (tokens) => ({ totalTokens: tokens }),
    },
  },
  'bedrock-converse': {
    matchesEndpoint: isConversePath,
    fixtureFolders: ['bedrock'],
    isStreaming: (request) => request.path.endsWith('/converse-stream'),
    streamsJsonArray: () => false,
    eventStream: 'converse',
    namedEvents: false,
    modelList: bedrockModelList,
    checkRules: (request) => checkConverseRequest(request),
    errors: bedrockErrors,
    countEndpoint: bedrockCountEndpoint,
  },
  'bedrock-invoke': {
    matchesEndpoint: isInvokePath,
    fixtureFolders: [],
    isStreaming: (request) => request.path.endsWith('/invoke-with-response-stream'),
    streamsJsonArray: () => false,
    eventStream: 'chunk',
    namedEvents: false,
    modelList: bedrockModelList,
    checkRules: (request) => checkInvokeRequest(request),
    errors: bedrockErrors,
    countEndpoint: bedrockCountEndpoint,
  },
  'vertex-anthropic': {
    matchesEndpoint: isVertexAnthropicPath,
    fixtureFolders: [],
    isStreaming: (request) => request.path.endsWith(':streamRawPredict'),
    streamsJsonArray: () => false,
    namedEvents: true,
    modelList: () => ({ publisherModels: [] }),
    checkRules: (request) => checkVertexAnthropicRequest(request),
    errors: vertexAnthropicErrors,
    // Claude's count: one endpoint for every model, the model in the body.
    countEndpoint: {
      matches: (path) => path.endsWith('/publishers/anthropic/models/count-tokens:rawPredict'),
      reply: (tokens) => ({ input_tokens: tokens }),
    },
  },
};

function bedrockModelList(): unknown {
  return {
    modelSummaries: [
      {
        modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
        modelName: 'Claude Sonnet 4.5',
        providerName: 'Anthropic',
      },
      { modelId: 'amazon.nova-pro-v1:0', modelName: 'Nova Pro', providerName: 'Amazon' },
    ],
  };
}

/** The protocol of requests and files nothing else claims: OpenAI Chat Completions, the common dialect. */
export const fallbackProtocol: EmulatorProtocolId = 'openai-chat';

/** The wire protocols the emulator serves. */
export const emulatorProtocolIds = Object.keys(emulatorProtocols) as readonly EmulatorProtocolId[];
