/**
 * The table of APIs: one row per adapter `type` of the config (`anthropic`, `openai`,
 * `openai-responses`, `gemini`, `openai-compatible`), each creating its adapter from one options
 * shape. New wire protocols join with `registerApi`; nothing else switches on provider names.
 */
import type { Adapter } from '../core/adapter.ts';
import type { Logger } from '../core/logger.ts';
import { createAnthropic } from '../providers/anthropic/index.ts';
import { createGemini } from '../providers/gemini/index.ts';
import { createOpenAI } from '../providers/openai-chat/index.ts';
import type { ChatQuirks } from '../providers/openai-chat/quirks.ts';
import { createOpenAICompatible } from '../providers/openai-compatible/index.ts';
import { createOpenAIResponses } from '../providers/openai-responses/index.ts';
import { type PresetName, presets } from '../providers/openai-compatible/presets.ts';

/** What the registry hands an API row to create one adapter. */
export interface ApiCreateOptions {
  /** The adapter name (`anthropic`, `groq`, `my-host`): the `provider` half of model ids. */
  name: string;
  /** The key, already read from the environment; absent for keyless hosts. */
  apiKey?: string;
  baseURL?: string;
  /** Whole-call timeout, ms. */
  timeout?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  logger?: Logger;
  /** `openai-compatible`: the preset the host starts from. */
  preset?: string;
  /** `openai-compatible`: how the host differs from its preset / a faithful host. */
  quirks?: Partial<ChatQuirks>;
  /** Adapter-specific options passed through verbatim (e.g. Anthropic `betas`). */
  options?: Record<string, unknown>;
}

/** One row of the API table. */
export interface ApiDefinition {
  /** The config `type`. */
  type: string;
  /** The environment variables the key is read from, in order (none: the host needs no key). */
  keyVariables(options: Pick<ApiCreateOptions, 'name' | 'preset' | 'quirks'>): readonly string[];
  /** Whether the adapter cannot work without a key. */
  keyRequired(options: Pick<ApiCreateOptions, 'name' | 'preset' | 'quirks'>): boolean;
  create(options: ApiCreateOptions): Adapter;
}

/** A mutable table of APIs, keyed by `type`. */
export type ApiTable = Map<string, ApiDefinition>;

function common(options: ApiCreateOptions) {
  return {
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeout,
    maxRetries: options.maxRetries,
    headers: options.headers,
    fetch: options.fetch,
    logger: options.logger,
  };
}

function presetOf(options: Pick<ApiCreateOptions, 'preset'>) {
  const name = options.preset;
  return name !== undefined && name in presets ? presets[name as PresetName] : undefined;
}

function compatibleQuirks(options: Pick<ApiCreateOptions, 'preset' | 'quirks'>): Partial<ChatQuirks> {
  return { ...presetOf(options)?.quirks, ...options.quirks };
}

const builtins: ApiDefinition[] = [
  {
    type: 'anthropic',
    keyVariables: () => ['ANTHROPIC_API_KEY'],
    keyRequired: () => true,
    create: (options) => createAnthropic({ ...options.options, ...common(options) }),
  },
  {
    type: 'openai',
    keyVariables: () => ['OPENAI_API_KEY'],
    keyRequired: () => true,
    create: (options) => createOpenAI({ ...options.options, ...common(options) }),
  },
  {
    type: 'openai-responses',
    keyVariables: () => ['OPENAI_API_KEY'],
    keyRequired: () => true,
    create: (options) => createOpenAIResponses({ ...options.options, ...common(options) }),
  },
  {
    type: 'gemini',
    keyVariables: () => ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    keyRequired: () => true,
    create: (options) => createGemini({ ...options.options, ...common(options) }),
  },
  {
    type: 'openai-compatible',
    keyVariables: (options) => {
      const variable = compatibleQuirks(options).apiKeyEnv;
      return variable === undefined ? [] : [variable];
    },
    keyRequired: (options) => compatibleQuirks(options).apiKeyRequired === true,
    create: (options) =>
      createOpenAICompatible(
        { name: options.name, quirks: compatibleQuirks(options) },
        { ...options.options, ...common(options) },
      ),
  },
];

/** A fresh table holding the built-in APIs. */
export function createApiTable(): ApiTable {
  return new Map(builtins.map((definition) => [definition.type, definition]));
}

/** The table `createSwitchyard` uses unless given its own. */
export const defaultApis: ApiTable = createApiTable();

/** Adds (or replaces) an API row; a later `createSwitchyard` can then use `type: definition.type`. */
export function registerApi(definition: ApiDefinition, table: ApiTable = defaultApis): void {
  table.set(definition.type, definition);
}
