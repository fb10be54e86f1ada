/**
 * The bundled configuration used when `createSwitchyard()` gets none: every built-in provider and
 * OpenAI-compatible preset, keys from the environment, a few well-known aliases, and the globs
 * that route a bare model name (`gpt-5`, `claude-…`, `gemini-…`) to its provider.
 */
import { presetNames } from '../providers/openai-compatible/presets.ts';
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

/** Built-in model entries: exact ids with aliases first, then globs for bare names (in order). */
export function builtinModels(): Record<string, ModelConfig | null> {
  return {
    'anthropic:claude-opus-4-5': { tier: 'deep', aliases: ['opus'] },
    'anthropic:claude-sonnet-4-5': { tier: 'balanced', aliases: ['sonnet'] },
    'anthropic:claude-haiku-4-5': { tier: 'fast', aliases: ['haiku'] },
    'openai:gpt-5': { tier: 'balanced', aliases: ['gpt'] },
    'openai:gpt-5-mini': { tier: 'fast', aliases: ['gpt-mini'] },
    'gemini:gemini-2.5-pro': { tier: 'balanced', aliases: ['gemini-pro'] },
    'gemini:gemini-2.5-flash': { tier: 'fast', aliases: ['flash'] },
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
