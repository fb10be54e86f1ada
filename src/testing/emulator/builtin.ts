/**
 * Endpoints answered without a script: model listings and token counts (from the protocol table)
 * and Gemini `cachedContents`.
 */
import { googleError } from './errors.ts';
import { createJsonPlan, type ResponsePlan } from './frames.ts';
import { randomToken } from './ids.ts';
import { emulatorProtocols, fallbackProtocol } from './protocols.ts';
import { bodyField } from './request-fields.ts';
import type { BuiltinEndpoint } from './routing.ts';
import type { JsonScript, RecordedRequest } from './types.ts';

function ttlSeconds(body: unknown): number {
  const ttl = bodyField(body, 'ttl');
  const match = typeof ttl === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(ttl) : null;
  return match ? Number(match[1]) : 3600;
}

/** The state behind Gemini's `cachedContents` endpoints. */
export interface CachedContentStore {
  entries: Map<string, Record<string, unknown>>;
  /** The API key each entry was created with (an entry belongs to that key's project). */
  owners: Map<string, string>;
}

/** The API key a Gemini request presents (header or `key` query), if any. */
function apiKeyOf(request: RecordedRequest): string | undefined {
  const key = request.headers['x-goog-api-key'] ?? request.query.key;
  return typeof key === 'string' && key !== '' ? key : undefined;
}

/** Whether `name` was created with an API key other than the one `request` presents. */
function ownedByAnother(store: CachedContentStore, name: string, request: RecordedRequest): boolean {
  const owner = store.owners.get(name);
  return owner !== undefined && owner !== apiKeyOf(request);
}

const notFound = () => googleError(403, `CachedContent not found (or permission denied)`);

/**
 * A generation request whose `cachedContent` the emulator created with another API key: Google's 403
 * (an entry belongs to one project, so another account's key cannot read it).
 */
export function checkCachedContentUse(
  store: CachedContentStore,
  request: RecordedRequest,
): JsonScript | undefined {
  const name = bodyField(request.body, 'cachedContent');
  return typeof name === 'string' && ownedByAnother(store, name, request) ? notFound() : undefined;
}

function createCachedContent(store: CachedContentStore, request: RecordedRequest): Record<string, unknown> {
  const now = new Date();
  const expireTime = bodyField(request.body, 'expireTime');
  const name = `cachedContents/${randomToken(12, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
  const entry = {
    name,
    model: bodyField(request.body, 'model'),
    createTime: now.toISOString(),
    updateTime: now.toISOString(),
    expireTime:
      typeof expireTime === 'string'
        ? expireTime
        : new Date(now.getTime() + ttlSeconds(request.body) * 1000).toISOString(),
    displayName: bodyField(request.body, 'displayName') ?? '',
    usageMetadata: { totalTokenCount: Math.ceil(JSON.stringify(request.body ?? '').length / 4) },
  };
  store.entries.set(name, entry);
  const owner = apiKeyOf(request);
  if (owner !== undefined) store.owners.set(name, owner);
  return entry;
}

function answerCachedContents(store: CachedContentStore, request: RecordedRequest): ResponsePlan {
  const name = /(cachedContents\/[^/]+)$/.exec(request.path)?.[1];
  if (name === undefined) {
    if (request.method === 'POST') return createJsonPlan(200, createCachedContent(store, request));
    return createJsonPlan(200, { cachedContents: [...store.entries.values()] });
  }
  const entry = store.entries.get(name);
  if (entry === undefined || ownedByAnother(store, name, request)) {
    const error = notFound();
    return createJsonPlan(error.status ?? 403, error.body, error.headers);
  }
  if (request.method === 'DELETE') {
    store.entries.delete(name);
    store.owners.delete(name);
    return createJsonPlan(200, {});
  }
  return createJsonPlan(200, entry);
}

/**
 * The emulator's token count of a request: one token per four characters of its body as JSON
 * (at least one), so a test can tell the number the upstream answered from any local estimate.
 */
export function emulatedTokenCount(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? null).length / 4));
}

/** Answers a token-count endpoint: `script` when one is set (`Emulator.setCountScript`), else the count. */
function answerCount(request: RecordedRequest, script: JsonScript | undefined): ResponsePlan {
  if (script !== undefined) return createJsonPlan(script.status ?? 200, script.body, script.headers);
  const endpoint = emulatorProtocols[request.protocol ?? fallbackProtocol].countEndpoint;
  return createJsonPlan(200, endpoint?.reply(emulatedTokenCount(request.body)));
}

/** Answers a built-in endpoint (`GET …/models`, `…/cachedContents[/<id>]`, token counts). */
export function answerBuiltin(
  endpoint: BuiltinEndpoint,
  request: RecordedRequest,
  store: CachedContentStore,
  countScript?: JsonScript,
): ResponsePlan {
  if (endpoint === 'count-tokens') return answerCount(request, countScript);
  if (endpoint === 'cached-contents') return answerCachedContents(store, request);
  return createJsonPlan(200, emulatorProtocols[request.protocol ?? fallbackProtocol].modelList());
}
