/**
 * The table of APIs: one row per adapter `type` of the config (`anthropic`, `openai`,
 * `openai-responses`, `gemini`, `openai-compatible`), each creating its adapter from one options
 * shape. New wire protocols join with `registerApi`; the CLI, the benchmarks and the tests derive
 * their protocol lists from the same rows (`api-table.ts`), so nothing else switches on provider names.
 */
import { createAnthropic } from '../providers/anthropic/index.ts';
import { createBedrock } from '../providers/bedrock/index.ts';
import { createVertex } from '../providers/vertex/index.ts';
import { createGemini } from '../providers/gemini/index.ts';
import { createOpenAI } from '../providers/openai-chat/index.ts';
import { createOpenAICompatible } from '../providers/openai-compatible/index.ts';
import { createOpenAIResponses } from '../providers/openai-responses/index.ts';
import { type ApiDefinition, type ApiTable, type BuiltinFactories, builtinApis } from './api-table.ts';

export type { ApiCreateOptions, ApiDefinition, ApiTable } from './api-table.ts';

const factories: BuiltinFactories = {
  anthropic: createAnthropic,
  openai: createOpenAI,
  'openai-responses': createOpenAIResponses,
  gemini: createGemini,
  'openai-compatible': createOpenAICompatible,
  bedrock: createBedrock,
  vertex: createVertex,
};

/** A fresh table holding the built-in APIs. */
export function createApiTable(): ApiTable {
  const rows = builtinApis({ get: (type) => factories[type] });
  return new Map(rows.map((definition) => [definition.type, definition]));
}

/** The table `createSwitchyard` uses unless given its own. */
export const defaultApis: ApiTable = createApiTable();

/** Adds (or replaces) an API row; a later `createSwitchyard` can then use `type: definition.type`. */
export function registerApi(definition: ApiDefinition, table: ApiTable = defaultApis): void {
  table.set(definition.type, definition);
}
