/** Model listings in each protocol's shape, and token counting, from the front door's registry. */
import { estimateUpperBound } from '../providers/common/token-estimate.ts';
import { allowsModel, type GatewayKey } from './keys.ts';
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
    if (!model.configured) continue;
    for (const name of [model.id, ...model.aliases])
      if (allowsModel(key, [name, model.id]))
        names.push({ name, provider: model.provider, facts: model.facts });
  }
  return names;
}

/** `GET /v1/models`, OpenAI's shape. */
export function openaiModels(state: GatewayState, key: GatewayKey | undefined): unknown {
  const data = listedNames(state, key).map((model) => ({
    id: model.name,
    object: 'model',
    created: 0,
    owned_by: model.provider,
  }));
  return { object: 'list', data };
}

/** `GET /v1/models` with `anthropic-version`: Anthropic's shape. */
export function anthropicModels(state: GatewayState, key: GatewayKey | undefined): unknown {
  const data = listedNames(state, key).map((model) => ({
    type: 'model',
    id: model.name,
    display_name: model.name,
    created_at: '1970-01-01T00:00:00Z',
  }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** `GET /v1beta/models`, Gemini's shape. */
export function geminiModels(state: GatewayState, key: GatewayKey | undefined): unknown {
  const models = listedNames(state, key).map((model) => ({
    name: `models/${model.name}`,
    displayName: model.name,
    inputTokenLimit: model.facts.contextWindow ?? 0,
    outputTokenLimit: model.facts.maxOutputTokens ?? 0,
    supportedGenerationMethods: ['generateContent', 'countTokens'],
  }));
  return { models };
}

/** A local upper-bound estimate of a decoded request's input tokens (no upstream call). */
export function countTokens(transcript: Parameters<typeof estimateUpperBound>[0]): number {
  return estimateUpperBound(transcript);
}
