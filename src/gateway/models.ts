/** Model listings in each protocol's shape, and token counting, from the front door's registry. */
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
      if (allowsModel(key, resolved === undefined ? [name] : namesOf(name, resolved)))
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

/** `GET /v1/models`, OpenAI's shape. */
export function openaiModels(state: GatewayState, key: GatewayKey | undefined): unknown {
  return { object: 'list', data: listedNames(state, key).map(openaiModel) };
}

/** `GET /v1/models` with `anthropic-version`: Anthropic's shape. */
export function anthropicModels(state: GatewayState, key: GatewayKey | undefined): unknown {
  const data = listedNames(state, key).map(anthropicModel);
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** `GET /v1beta/models`, Gemini's shape. */
export function geminiModels(state: GatewayState, key: GatewayKey | undefined): unknown {
  return { models: listedNames(state, key).map(geminiModel) };
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
  if (!model.configured || !allowsModel(key, namesOf(name, model))) return undefined;
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
          allowsModel(key, namesOf(fallback, candidate))
        );
      } catch {
        return false;
      }
    };
    if (!model.fallbacks.some(servable)) return undefined;
  }
  return { name, provider: model.provider, facts: model.facts };
}
