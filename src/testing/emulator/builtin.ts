/** Endpoints answered without a script: model listings (from the protocol table) and Gemini `cachedContents`. */
import { googleError } from './errors.ts';
import { createJsonPlan, type ResponsePlan } from './frames.ts';
import { randomToken } from './ids.ts';
import { emulatorProtocols, fallbackProtocol } from './protocols.ts';
import { bodyField } from './request-fields.ts';
import type { RecordedRequest } from './types.ts';

function ttlSeconds(body: unknown): number {
  const ttl = bodyField(body, 'ttl');
  const match = typeof ttl === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(ttl) : null;
  return match ? Number(match[1]) : 3600;
}

/** The state behind Gemini's `cachedContents` endpoints. */
export interface CachedContentStore {
  entries: Map<string, Record<string, unknown>>;
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
  return entry;
}

function answerCachedContents(store: CachedContentStore, request: RecordedRequest): ResponsePlan {
  const name = /(cachedContents\/[^/]+)$/.exec(request.path)?.[1];
  if (name === undefined) {
    if (request.method === 'POST') return createJsonPlan(200, createCachedContent(store, request));
    return createJsonPlan(200, { cachedContents: [...store.entries.values()] });
  }
  const entry = store.entries.get(name);
  if (entry === undefined) {
    const error = googleError(403, `CachedContent not found (or permission denied)`);
    return createJsonPlan(error.status ?? 403, error.body, error.headers);
  }
  if (request.method === 'DELETE') {
    store.entries.delete(name);
    return createJsonPlan(200, {});
  }
  return createJsonPlan(200, entry);
}

/** Answers a built-in endpoint (`GET …/models`, `…/cachedContents[/<id>]`). */
export function answerBuiltin(
  endpoint: 'models' | 'cached-contents',
  request: RecordedRequest,
  store: CachedContentStore,
): ResponsePlan {
  if (endpoint === 'cached-contents') return answerCachedContents(store, request);
  return createJsonPlan(200, emulatorProtocols[request.protocol ?? fallbackProtocol].modelList());
}
