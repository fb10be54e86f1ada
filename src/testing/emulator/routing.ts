/** Maps request paths (matched by suffix, so base-URL prefixes work) to protocols, models and streaming. */
import type { EmulatorApi, RecordedRequest } from './types.ts';

const geminiGeneratePattern = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** The wire protocols the emulator serves, in the order its docs list them. */
export const emulatorApis: readonly EmulatorApi[] = [
  'anthropic-messages',
  'openai-chat',
  'openai-responses',
  'gemini',
];

/** True when the emulator serves the wire protocol `name`. */
export function isEmulatorApi(name: string | undefined): name is EmulatorApi {
  return name !== undefined && (emulatorApis as readonly string[]).includes(name);
}

/** The endpoints the emulator answers by itself, without consuming a script. */
export type BuiltinEndpoint = 'models' | 'cached-contents';

/** The protocol of a scripted POST endpoint, matched on the path suffix; `undefined` when unknown. */
export function matchScriptedApi(path: string): EmulatorApi | undefined {
  if (path.endsWith('/chat/completions')) return 'openai-chat';
  if (path.endsWith('/responses')) return 'openai-responses';
  if (path.endsWith('/messages')) return 'anthropic-messages';
  if (geminiGeneratePattern.test(path)) return 'gemini';
  return undefined;
}

/** The built-in endpoint a request hits, if any: model listings and Gemini `cachedContents`. */
export function matchBuiltin(method: string, path: string): BuiltinEndpoint | undefined {
  if (/\/cachedContents(\/[^/]+)?$/.test(path)) return 'cached-contents';
  if (method === 'GET' && /\/models(\/[^/:]+)?$/.test(path)) return 'models';
  return undefined;
}

/**
 * The protocol of a request. Model listings are shared by all providers, so for `GET …/models` the
 * credentials decide: Gemini keys or a `v1beta` path mean Gemini, Anthropic headers mean Anthropic,
 * anything else OpenAI.
 */
export function inferApi(
  request: Pick<RecordedRequest, 'method' | 'path' | 'headers' | 'query'>,
): EmulatorApi | undefined {
  const { method, path, headers, query } = request;
  const builtin = matchBuiltin(method, path);
  if (builtin === 'cached-contents') return 'gemini';
  if (builtin === 'models') {
    if (path.includes('/v1beta/') || 'x-goog-api-key' in headers || 'key' in query) return 'gemini';
    if ('anthropic-version' in headers || 'x-api-key' in headers) return 'anthropic-messages';
    return 'openai-chat';
  }
  return matchScriptedApi(path);
}

/** Infers the protocol of a fixture file from its path (`anthropic/`, `responses/`, `google/`, else OpenAI chat). */
export function inferApiFromFile(file: string): EmulatorApi {
  // Only the file's own folder and the one above count (`openai/responses/x.chunks.txt`), so a
  // directory named `responses` higher up the path (a checkout, a home folder) changes nothing.
  const folders = file.split(/[/\\]/).slice(-3, -1);
  if (folders.includes('anthropic')) return 'anthropic-messages';
  if (folders.includes('responses')) return 'openai-responses';
  if (folders.includes('google')) return 'gemini';
  return 'openai-chat';
}

function objectBody(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

/** Whether the request asks for a streamed answer (`stream: true`, or Gemini's `:streamGenerateContent`). */
export function isStreamingRequest(
  api: EmulatorApi,
  request: Pick<RecordedRequest, 'path' | 'body'>,
): boolean {
  if (api === 'gemini') return request.path.endsWith(':streamGenerateContent');
  return objectBody(request.body).stream === true;
}

/**
 * Whether a streamed answer goes out as one JSON array rather than SSE: Gemini's
 * `:streamGenerateContent` sends SSE only when asked with `?alt=sse`.
 */
export function isJsonArrayStream(
  api: EmulatorApi,
  request: Pick<RecordedRequest, 'path' | 'body' | 'query'>,
): boolean {
  return api === 'gemini' && isStreamingRequest(api, request) && request.query.alt !== 'sse';
}

/** Whether an OpenAI chat request asked for the trailing usage chunk (`stream_options.include_usage`). */
export function wantsStreamUsage(request: Pick<RecordedRequest, 'body'>): boolean {
  return objectBody(objectBody(request.body).stream_options).include_usage === true;
}

/** The Gemini model named in the path (`…/models/<model>:generateContent`). */
export function geminiModelFromPath(path: string): string | undefined {
  return geminiGeneratePattern.exec(path)?.[1];
}

/** The model a request names: the Gemini path segment, else the body's `model` field. */
export function requestedModel(request: Pick<RecordedRequest, 'path' | 'body'>): string | undefined {
  const fromPath = geminiModelFromPath(request.path);
  if (fromPath !== undefined) return fromPath;
  const model = objectBody(request.body).model;
  return typeof model === 'string' ? model : undefined;
}

/** Reads a field of a JSON object body without trusting its shape. */
export function bodyField(body: unknown, name: string): unknown {
  return objectBody(body)[name];
}
