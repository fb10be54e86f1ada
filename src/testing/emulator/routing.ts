/** Maps request paths (matched by suffix, so base-URL prefixes work) and fixture files to protocols, from the protocol table. */
import { emulatorApis, emulatorProtocols, fallbackApi } from './protocols.ts';
import type { EmulatorApi, RecordedRequest } from './types.ts';

export { emulatorApis };
export { bodyField, geminiModelFromPath, requestedModel, wantsStreamUsage } from './request-fields.ts';

/** True when the emulator serves the wire protocol `name`. */
export function isEmulatorApi(name: string | undefined): name is EmulatorApi {
  return name !== undefined && Object.hasOwn(emulatorProtocols, name);
}

/** The endpoints the emulator answers by itself, without consuming a script. */
export type BuiltinEndpoint = 'models' | 'cached-contents';

/** The protocol of a scripted POST endpoint, matched on the path suffix; `undefined` when unknown. */
export function matchScriptedApi(path: string): EmulatorApi | undefined {
  return emulatorApis.find((api) => emulatorProtocols[api].matchesEndpoint(path));
}

/** The built-in endpoint a request hits, if any: model listings and Gemini `cachedContents`. */
export function matchBuiltin(method: string, path: string): BuiltinEndpoint | undefined {
  if (/\/cachedContents(\/[^/]+)?$/.test(path)) return 'cached-contents';
  if (method === 'GET' && /\/models(\/[^/:]+)?$/.test(path)) return 'models';
  return undefined;
}

/**
 * The protocol of a request. Model listings are shared by all providers, so for `GET …/models` the
 * path and credentials decide (Gemini keys or a `v1beta` path, Anthropic headers), else OpenAI.
 */
export function inferApi(
  request: Pick<RecordedRequest, 'method' | 'path' | 'headers' | 'query'>,
): EmulatorApi | undefined {
  const builtin = matchBuiltin(request.method, request.path);
  if (builtin === 'cached-contents') return 'gemini';
  if (builtin === 'models')
    return (
      emulatorApis.find((api) => emulatorProtocols[api].ownsModelListing?.(request) === true) ?? fallbackApi
    );
  return matchScriptedApi(request.path);
}

/** Infers the protocol of a fixture file from its folder (`anthropic/`, `responses/`, `google/`), else OpenAI chat. */
export function inferApiFromFile(file: string): EmulatorApi {
  // Only the file's own folder and the one above count (`openai/responses/x.chunks.txt`), so a
  // directory named `responses` higher up the path (a checkout, a home folder) changes nothing.
  const folders = file.split(/[/\\]/).slice(-3, -1);
  const owner = emulatorApis.find((api) =>
    emulatorProtocols[api].fixtureFolders.some((folder) => folders.includes(folder)),
  );
  return owner ?? fallbackApi;
}

/** Whether the request asks for a streamed answer (`stream: true`, or Gemini's `:streamGenerateContent`). */
export function isStreamingRequest(
  api: EmulatorApi,
  request: Pick<RecordedRequest, 'path' | 'body'>,
): boolean {
  return emulatorProtocols[api].isStreaming(request);
}

/**
 * Whether a streamed answer goes out as one JSON array rather than SSE: Gemini's
 * `:streamGenerateContent` sends SSE only when asked with `?alt=sse`.
 */
export function isJsonArrayStream(
  api: EmulatorApi,
  request: Pick<RecordedRequest, 'path' | 'body' | 'query'>,
): boolean {
  return emulatorProtocols[api].streamsJsonArray(request);
}
