/** Model listings in each protocol's shape, and token counting, from the front door's registry. */
import { shown } from '../codecs/fields.ts';
import { GatewayError } from './errors.ts';
import { allowsModel, type GatewayKey, namesOf } from './keys.ts';
import type { GatewayState } from './state.ts';

/** The configured models' ids and aliases that `key` may use (each as the generation routes check it). */
function listedNames(
  state: GatewayState,
  key: GatewayKey | undefined,
): Array<{ name: string; provider: string; facts: { contextWindow?: number; maxOutputTokens?: number } }> {
  const names: Array<{
    name: string;
    provider: string;
    facts: { contextWindow?: number; maxOutputTokens?: number };
  }> = [];
  for (const model of state.switchyard.models()) {
    // Listed only what a call could reach: configured, and servable as set up (Vertex express mode
    // serves Gemini only).
    if (!model.configured || model.unserved !== undefined) continue;
    // Checked as the generation routes check a name (`permittedModel`): by what it resolves to.
    const resolved = key?.models === undefined ? undefined : state.switchyard.resolve(model.id);
    for (const name of [model.id, ...model.aliases])
      if (allowsModel(key, resolved === undefined ? [name] : namesOf(name, resolved), resolved?.id))
        names.push({ name, provider: model.provider, facts: model.facts });
  }
  return names;
}

type Listed = ReturnType<typeof listedNames>[number];

const openaiModel = (model: Listed) => ({
  id: model.name,
  object: 'model',
  created: 0,
  owned_by: model.provider,
});
const anthropicModel = (model: Listed) => ({
  type: 'model',
  id: model.name,
  display_name: model.name,
  created_at: '1970-01-01T00:00:00Z',
});
const geminiModel = (model: Listed) => ({
  name: `models/${model.name}`,
  displayName: model.name,
  inputTokenLimit: model.facts.contextWindow ?? 0,
  outputTokenLimit: model.facts.maxOutputTokens ?? 0,
  supportedGenerationMethods: ['generateContent', 'countTokens'],
});

/** A listing request's query parameter, by name (undefined when absent). */
export type ListingQuery = (name: string) => string | undefined;

/** A listing's 400 for a parameter it cannot take, in the route's protocol shape once answered. */
const badParameter = (message: string) =>
  new GatewayError({ status: 400, errorClass: 'invalid_request', message });

/** An integer parameter from its text (digits, an optional sign), or undefined when it is none. */
function integerOf(text: string): number | undefined {
  return /^[+-]?\d{1,9}$/.test(text) ? Number(text) : undefined;
}

/** `GET /v1/models`, OpenAI's shape (OpenAI's listing has no pages). */
export function openaiModels(state: GatewayState, key: GatewayKey | undefined): unknown {
  return { object: 'list', data: listedNames(state, key).map(openaiModel) };
}

/** Anthropic's page size when `limit` is not given, and its largest (as the Anthropic API documents). */
const anthropicPage = { default: 20, max: 1000 };

/**
 * `GET /v1/models` with `anthropic-version`: Anthropic's shape and pages — `limit` (1 to 1000,
 * default 20), `after_id` (the page after that model) or `before_id` (the page before it);
 * `has_more` says whether more are left in the direction asked, `first_id` and `last_id` are the
 * page's ends (the SDK's next page asks `after_id: last_id`, or `before_id: first_id`).
 */
export function anthropicModels(
  state: GatewayState,
  key: GatewayKey | undefined,
  query: ListingQuery,
): unknown {
  const limitText = query('limit');
  const limit = limitText === undefined ? anthropicPage.default : integerOf(limitText);
  if (limit === undefined || limit < 1 || limit > anthropicPage.max)
    throw badParameter(`limit: must be an integer from 1 to ${anthropicPage.max}`);
  const afterId = query('after_id');
  const beforeId = query('before_id');
  if (afterId !== undefined && beforeId !== undefined)
    throw badParameter('after_id, before_id: give at most one of them');
  const all = listedNames(state, key).map(anthropicModel);
  const cursor = afterId ?? beforeId;
  const at = cursor === undefined ? -1 : all.findIndex((model) => model.id === cursor);
  if (cursor !== undefined && at === -1)
    throw badParameter(
      `${afterId !== undefined ? 'after_id' : 'before_id'}: no model '${shown(cursor)}' in this listing`,
    );
  let data: typeof all;
  let hasMore: boolean;
  if (beforeId !== undefined) {
    data = all.slice(Math.max(0, at - limit), at);
    hasMore = at - limit > 0;
  } else {
    data = all.slice(at + 1, at + 1 + limit);
    hasMore = at + 1 + limit < all.length;
  }
  return { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** Gemini's page size when `pageSize` is not given (or 0), and its largest (a larger one is cut to it). */
const geminiPage = { default: 50, max: 1000 };

/** A `pageToken`: the name of the page's first model, base64url (opaque to the client). */
const pageTokenOf = (name: string) => Buffer.from(name, 'utf8').toString('base64url');

/**
 * `GET /v1beta/models`, Gemini's shape and pages: `pageSize` (default 50, at most 1000: more is cut
 * to it; negative is a 400) and `pageToken` (the `nextPageToken` of the page before; one this
 * listing did not give is a 400). `nextPageToken` is there while models are left.
 */
export function geminiModels(state: GatewayState, key: GatewayKey | undefined, query: ListingQuery): unknown {
  const sizeText = query('pageSize');
  const size = sizeText === undefined ? 0 : integerOf(sizeText);
  if (size === undefined || size < 0) throw badParameter('pageSize: must be a non-negative integer');
  const pageSize = size === 0 ? geminiPage.default : Math.min(size, geminiPage.max);
  const all = listedNames(state, key);
  const token = query('pageToken');
  let start = 0;
  if (token !== undefined && token !== '') {
    start = all.findIndex((model) => pageTokenOf(model.name) === token);
    if (start === -1) throw badParameter('pageToken: not a page token of this listing');
  }
  const models = all.slice(start, start + pageSize).map(geminiModel);
  const next = all[start + pageSize];
  return next === undefined ? { models } : { models, nextPageToken: pageTokenOf(next.name) };
}

/**
 * One listed model in its protocol's shape (`GET /v1/models/{id}`, `GET /v1beta/models/{name}`);
 * undefined when the key's listing does not show it. Gemini's name may carry its `models/` prefix.
 */
export function listedModel(
  state: GatewayState,
  key: GatewayKey | undefined,
  protocol: 'openai-chat' | 'anthropic-messages' | 'gemini',
  name: string,
): unknown {
  const wanted = protocol === 'gemini' ? name.replace(/^models\//, '') : name;
  const model =
    listedNames(state, key).find((entry) => entry.name === wanted) ?? routable(state, key, wanted);
  if (model === undefined) return undefined;
  if (protocol === 'gemini') return geminiModel(model);
  return protocol === 'anthropic-messages' ? anthropicModel(model) : openaiModel(model);
}

/**
 * A name the generation routes would serve for `key` though the listing does not show it (a
 * catalog model a glob or a `provider:` prefix reaches): described under the name asked.
 */
function routable(state: GatewayState, key: GatewayKey | undefined, name: string): Listed | undefined {
  let model: ReturnType<GatewayState['switchyard']['resolve']>;
  try {
    model = state.switchyard.resolve(name);
  } catch {
    return undefined;
  }
  if (!model.configured || !allowsModel(key, namesOf(name, model), model.id)) return undefined;
  // A model its adapter cannot serve as set up (Vertex express mode) routes only through a
  // fallback that can, and that the key may use: without one, no call reaches it.
  const unserved = new Set(
    state.switchyard
      .models()
      .filter((listed) => listed.unserved !== undefined)
      .map((listed) => listed.id),
  );
  if (unserved.size > 0 && unserved.has(model.id)) {
    const servable = (fallback: string) => {
      try {
        const candidate = state.switchyard.resolve(fallback);
        return (
          candidate.configured &&
          !unserved.has(candidate.id) &&
          allowsModel(key, namesOf(fallback, candidate), candidate.id)
        );
      } catch {
        return false;
      }
    };
    if (!model.fallbacks.some(servable)) return undefined;
  }
  return { name, provider: model.provider, facts: model.facts };
}
