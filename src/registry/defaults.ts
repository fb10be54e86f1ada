/**
 * The bundled configuration used when `createSwitchyard()` gets none: every built-in provider and
 * OpenAI-compatible preset, keys from the environment, a few well-known aliases (each the newest
 * model of its family in the bundled catalog, never older than a pinned floor), and the globs
 * that route a bare model name (`gpt-5`, `claude-…`, `gemini-…`) to its provider.
 */
import { presetNames } from '../providers/openai-compatible/presets.ts';
import type { ModelCatalog } from '../core/catalog.ts';
import { bundledCatalog } from '../providers/catalog/index.ts';
import type { AdapterConfig, ModelConfig } from './config.ts';

/** Built-in adapters by name. */
export function builtinAdapters(): Record<string, AdapterConfig> {
  const adapters: Record<string, AdapterConfig> = {
    anthropic: { type: 'anthropic' },
    openai: { type: 'openai' },
    gemini: { type: 'gemini' },
  };
  for (const preset of presetNames) adapters[preset] = { type: 'openai-compatible', preset };
  return adapters;
}

/**
 * One default alias: the newest model of a family in the bundled catalog (by release date), never
 * older than `floor` — the pinned model the alias names when the catalog snapshot knows nothing newer.
 */
export interface AliasRule {
  alias: string;
  tier: string;
  provider: string;
  /** Wire names of the family: stable names only (no previews, no `-latest`), an optional date suffix. */
  family: RegExp;
  floor: { wireName: string; releaseDate: string };
}

/** The default aliases, each a family of one provider's models. */
export const aliasRules: readonly AliasRule[] = [
  {
    alias: 'opus',
    tier: 'deep',
    provider: 'anthropic',
    family: /^claude-opus-\d+(-\d+)?(-\d{8})?$/,
    floor: { wireName: 'claude-opus-4-5', releaseDate: '2025-11-24' },
  },
  {
    alias: 'sonnet',
    tier: 'balanced',
    provider: 'anthropic',
    family: /^claude-sonnet-\d+(-\d+)?(-\d{8})?$/,
    floor: { wireName: 'claude-sonnet-4-5', releaseDate: '2025-09-29' },
  },
  {
    alias: 'haiku',
    tier: 'fast',
    provider: 'anthropic',
    family: /^claude-haiku-\d+(-\d+)?(-\d{8})?$/,
    floor: { wireName: 'claude-haiku-4-5', releaseDate: '2025-10-15' },
  },
  {
    alias: 'gpt',
    tier: 'balanced',
    provider: 'openai',
    family: /^gpt-\d+(\.\d+)?$/,
    floor: { wireName: 'gpt-5', releaseDate: '2025-08-07' },
  },
  {
    alias: 'gpt-mini',
    tier: 'fast',
    provider: 'openai',
    family: /^gpt-\d+(\.\d+)?-mini$/,
    floor: { wireName: 'gpt-5-mini', releaseDate: '2025-08-07' },
  },
  {
    alias: 'gemini-pro',
    tier: 'balanced',
    provider: 'gemini',
    family: /^gemini-\d+(\.\d+)?-pro$/,
    floor: { wireName: 'gemini-2.5-pro', releaseDate: '2025-03-20' },
  },
  {
    alias: 'flash',
    tier: 'fast',
    provider: 'gemini',
    family: /^gemini-\d+(\.\d+)?-flash$/,
    floor: { wireName: 'gemini-2.5-flash', releaseDate: '2025-03-20' },
  },
];

/**
 * The wire name `rule`'s alias names: the family's newest catalog row released after the floor
 * (ties: the shorter name, the undated alias; a date suffix is dropped, the provider's alias of
 * the snapshot), else the floor.
 */
export function aliasTarget(rule: AliasRule, catalog: ModelCatalog | undefined): string {
  let best = rule.floor;
  for (const [wireName, model] of Object.entries(catalog ?? {})) {
    const date = model.releaseDate;
    if (date === undefined || !rule.family.test(wireName)) continue;
    const name = wireName.replace(/-\d{8}$/, '');
    if (date > best.releaseDate || (date === best.releaseDate && name.length < best.wireName.length))
      best = { wireName: name, releaseDate: date };
  }
  return best.wireName;
}

/** Built-in model entries: the aliased models first (from `catalogs`, by adapter), then globs for bare names (in order). */
export function builtinModels(
  catalogs: Readonly<Record<string, ModelCatalog>> = bundledCatalog,
): Record<string, ModelConfig | null> {
  const models: Record<string, ModelConfig | null> = {};
  for (const rule of aliasRules) {
    const id = `${rule.provider}:${aliasTarget(rule, catalogs[rule.provider])}`;
    const known = models[id];
    // Two families cannot name one model with the patterns above; kept safe all the same.
    if (known) known.aliases = [...(known.aliases ?? []), rule.alias];
    else models[id] = { tier: rule.tier, aliases: [rule.alias] };
  }
  return {
    ...models,
    'anthropic:claude-*': null,
    'openai:gpt-*': null,
    'openai:o1*': null,
    'openai:o3*': null,
    'openai:o4*': null,
    'openai:chatgpt-*': null,
    'gemini:gemini-*': null,
    'xai:grok-*': null,
    'deepseek:deepseek-*': null,
    'mistral:mistral-*': null,
    'mistral:magistral-*': null,
    'mistral:codestral-*': null,
    'mistral:devstral-*': null,
    'perplexity:sonar*': null,
    'moonshot:kimi-*': null,
    'moonshot:moonshot-*': null,
    'alibaba:qwen*': null,
  };
}
