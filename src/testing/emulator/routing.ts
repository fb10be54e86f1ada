/** Maps request paths (matched by suffix, so base-URL prefixes work) and fixture files to protocols, from the protocol table. */
import { emulatorProtocolIds, emulatorProtocols, fallbackProtocol } from './protocols.ts';
import type { EmulatorProtocolId, RecordedRequest } from './types.ts';

export { emulatorProtocolIds };
export { bodyField, geminiModelFromPath, requestedModel, wantsStreamUsage } from './request-fields.ts';

/** True when the emulator serves the wire protocol `name`. */
export function isEmulatorProtocolId(name: string | undefined): name is EmulatorProtocolId {
  return name !== undefined && Object.hasOwn(emulatorProtocols, name);
}

/** The endpoints the emulator answers by itself, without consuming a script. */
export type BuiltinEndpoint = 'models' | 'cached-contents' | 'count-tokens';

/** The protocol whose token-count endpoint `path` is, if any. */
function countProtocol(path: string): EmulatorProtocolId | undefined {
  return emulatorProtocolIds.find(
    (protocol) => emulatorProtocols[protocol].countEndpoint?.matches(path) === true,
  );
}

/** The protocol of a scripted POST endpoint, matched on the path suffix; `undefined` when unknown. */
export function matchScriptedProtocol(path: string): EmulatorProtocolId | undefined {
  return emulatorProtocolIds.find((protocol) => emulatorProtocols[protocol].matchesEndpoint(path));
}

/** The built-in endpoint a request hits, if any: model listings, Gemini `cachedContents` and token counts. */
export function matchBuiltin(method: string, path: string): BuiltinEndpoint | undefined {
  if (/\/cachedContents(\/[^/]+)?$/.test(path)) return 'cached-contents';
  if (method === 'POST' && countProtocol(path) !== undefined) return 'count-tokens';
  if (method === 'GET' && /\/models(\/[^/:]+)?$/.test(path)) return 'models';
  return undefined;
}

/**
 * The protocol of a request. Model listings are shared by all providers, so for `GET …/models` the
 * path and credentials decide (Gemini keys or a `v1beta` path, Anthropic headers), else OpenAI.
 */
export function inferProtocol(
  request: Pick<RecordedRequest, 'method' | 'path' | 'headers' | 'query'>,
): EmulatorProtocolId | undefined {
  const builtin = matchBuiltin(request.method, request.path);
  if (builtin === 'cached-contents') return 'gemini';
  if (builtin === 'count-tokens') return countProtocol(request.path);
  if (builtin === 'models')
    return (
      emulatorProtocolIds.find(
        (protocol) => emulatorProtocols[protocol].ownsModelListing?.(request) === true,
      ) ?? fallbackProtocol
    );
  return matchScriptedProtocol(request.path);
}

/** Infers the protocol of a fixture file from its folder (`anthropic/`, `responses/`, `google/`), else OpenAI chat. */
export function inferProtocolFromFile(file: string): EmulatorProtocolId {
  // Only the file's own folder and the one above count (`openai/responses/x.chunks.txt`), so a
  // directory named `responses` higher up the path (a checkout, a home folder) changes nothing.
  const folders = file.split(/[/\\]/).slice(-3, -1);
  const owner = emulatorProtocolIds.find((protocol) =>
    emulatorProtocols[protocol].fixtureFolders.some((folder) => folders.includes(folder)),
  );
  return owner ?? fallbackProtocol;
}

/** Whether the request asks for a streamed answer (`stream: true`, or Gemini's `:streamGenerateContent`). */
export function isStreamingRequest(
  protocol: EmulatorProtocolId,
  request: Pick<RecordedRequest, 'path' | 'body'>,
): boolean {
  return emulatorProtocols[protocol].isStreaming(request);
}

/**
 * Whether a streamed answer goes out as one JSON array rather than SSE: Gemini's
 * `:streamGenerateContent` sends SSE only when asked with `?alt=sse`.
 */
export function isJsonArrayStream(
  protocol: EmulatorProtocolId,
  request: Pick<RecordedRequest, 'path' | 'body' | 'query'>,
): boolean {
  return emulatorProtocols[protocol].streamsJsonArray(request);
}
