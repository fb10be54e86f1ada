/**
 * The table of provider types: one row per adapter `type` of the config (`anthropic`, `openai`,
 * `openai-responses`, `gemini`, `openai-compatible`), each creating its adapter from one options
 * shape. New wire protocols join with `registerProviderType`; the CLI, the benchmarks and the tests derive
 * their protocol lists from the same rows (`provider-type-table.ts`), so nothing else switches on provider names.
 */
import { createAnthropic } from '../providers/anthropic/index.ts';
import { createBedrock } from '../providers/bedrock/index.ts';
import { createVertex } from '../providers/vertex/index.ts';
import { createGemini } from '../providers/gemini/index.ts';
import { createOpenAI } from '../providers/openai-chat/index.ts';
import { createOpenAICompatible } from '../providers/openai-compatible/index.ts';
import { createOpenAIResponses } from '../providers/openai-responses/index.ts';
import {
  type ProviderTypeDefinition,
  type ProviderTypeTable,
  type BuiltinFactories,
  builtinProviderTypes,
} from './provider-type-table.ts';

export type {
  ProviderTypeCreateOptions,
  ProviderTypeDefinition,
  ProviderTypeTable,
} from './provider-type-table.ts';

const factories: BuiltinFactories = {
  anthropic: createAnthropic,
  openai: createOpenAI,
  'openai-responses': createOpenAIResponses,
  gemini: createGemini,
  'openai-compatible': createOpenAICompatible,
  bedrock: createBedrock,
  vertex: createVertex,
};

/** A fresh table holding the built-in provider types. */
export function createProviderTypeTable(): ProviderTypeTable {
  const rows = builtinProviderTypes({ get: (type) => factories[type] });
  return new Map(rows.map((definition) => [definition.type, definition]));
}

/** The table `createSwitchyard` uses unless given its own. */
export const defaultProviderTypes: ProviderTypeTable = createProviderTypeTable();

/** Adds (or replaces) a provider-type row; a later `createSwitchyard` can then use `type: definition.type`. */
export function registerProviderType(
  definition: ProviderTypeDefinition,
  table: ProviderTypeTable = defaultProviderTypes,
): void {
  table.set(definition.type, definition);
}
