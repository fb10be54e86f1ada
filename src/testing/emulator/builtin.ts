/** Endpoints answered without a script: model listings per protocol and Gemini `cachedContents`. */
import { googleError } from './errors.ts';
import { createJsonPlan, type ResponsePlan } from './frames.ts';
import { randomToken } from './ids.ts';
import { bodyField } from './routing.ts';
import type { EmulatorApi, RecordedRequest } from './types.ts';

const anthropicModels = [
  { id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-15T00:00:00Z' },
];
const openaiModels = ['gpt-4.1-nano-2025-04-14', 'gpt-5-mini-2025-08-07'];
const geminiModels = [
  { id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash' },
  { id: 'gemini-3-pro-preview', displayName: 'Gemini 3 Pro Preview' },
];

function modelList(api: EmulatorApi): unknown {
  if (api === 'anthropic-messages') {
    const data = anthropicModels.map((model) => ({ type: 'model', ...model }));
    return { data, has_more: false, first_id: data[0]?.id, last_id: data.at(-1)?.id };
  }
  if (api === 'gemini') {
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
  const data = openaiModels.map((id) => ({
    id,
    object: 'model',
    created: 1_744_316_542,
    owned_by: 'system',
  }));
  return { object: 'list', data };
}

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
  return createJsonPlan(200, modelList(request.api ?? 'openai-chat'));
}
