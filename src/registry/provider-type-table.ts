/**
 * The table of provider types: one row per adapter `type` of the config (`anthropic`, `openai`,
 * `openai-responses`, `gemini`, `openai-compatible`, `bedrock`, `vertex`, …) with the facts every
 * consumer derives from it (wire protocol, base path, default model, key variables), what its
 * adapter declares about a model, and how it creates the adapter — whose code each built-in row
 * imports only when `load()` is awaited, so a process that drives one protocol loads one adapter.
 * Every client builds its own table ({@link createProviderTypeTable}); new wire protocols join one with
 * {@link registerProviderType}. The CLI, the benchmarks and the tests derive their protocol lists from the
 * same rows, so nothing else switches on provider names.
 */
import type { Adapter, ProtocolId } from '../core/adapter.ts';
import type { Capabilities } from '../core/capabilities.ts';
import { closest } from '../core/closest.ts';
import { basePathOf, providerTable, type TableProvider } from '../providers/common/provider-table.ts';
import type { Logger } from '../core/logger.ts';
import type { createAnthropic } from '../providers/anthropic/index.ts';
import type { createBedrock } from '../providers/bedrock/index.ts';
import type { createVertex } from '../providers/vertex/index.ts';
import type { createGemini } from '../providers/gemini/index.ts';
import type { createOpenAI } from '../providers/openai-chat/index.ts';
import type { ChatQuirks } from '../providers/openai-chat/quirks.ts';
import type { createOpenAICompatible } from '../providers/openai-compatible/index.ts';
import { type PresetName, presets } from '../providers/openai-compatible/presets.ts';
import type { createOpenAIResponses } from '../providers/openai-responses/index.ts';
import { declaredCapabilities } from './provider-type-capabilities.ts';

/** What the registry hands a provider-type row to create one adapter. */
export interface ProviderTypeCreateOptions {
  /** The adapter name (`anthropic`, `groq`, `my-host`): the `provider` half of model ids. */
  name: string;
  /** The key, already read from the environment; absent for keyless hosts. */
  apiKey?: string;
  baseURL?: string;
  /** Whole-call timeout, ms. */
  timeout?: number;
  /** Timeout until response headers, ms (the registry's default for routed calls: 30 000). */
  firstByteTimeout?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  logger?: Logger;
  /** `openai-compatible`: the preset the host starts from. */
  preset?: string;
  /** `openai-compatible`: how the host differs from its preset / a faithful host. */
  quirks?: Partial<ChatQuirks>;
  /** Adapter-specific options passed through verbatim (e.g. Anthropic `betas`, `maxConnections`). */
  options?: Record<string, unknown>;
  /** Where the adapter reads its base-URL and proxy variables (`createSwitchyard`'s `env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** One row of the provider-type table. */
export interface ProviderTypeDefinition {
  /** The config `type`. */
  type: string;
  /**
   * The wire protocol the adapter speaks: its `adapter.api`, also the provider emulator's name for
   * it. The CLI accepts it for `--protocol` (naming the first row that speaks it), the emulator frames
   * replays in it.
   */
  protocol?: ProtocolId;
  /**
   * The model-name grammar its adapter checks, when it is not `protocol`'s: Vertex speaks Gemini's
   * wire format but names Claude models too (`claude-sonnet-4-5@20250929`).
   */
  nameGrammar?: ProtocolId;
  /** Where the endpoints live below a host's root (`/v1`, `/v1beta`; default none): appended to the emulator's URL. */
  basePath?: string;
  /** A model to request when a caller does not say (CLI `replay`, tests, bench): `provider:model`. */
  defaultModel?: string;
  /** The environment variables the key is read from, in order (none: the host needs no key). */
  keyVariables(options: Pick<ProviderTypeCreateOptions, 'name' | 'preset' | 'quirks'>): readonly string[];
  /** Whether the adapter cannot work without a key. */
  keyRequired(options: Pick<ProviderTypeCreateOptions, 'name' | 'preset' | 'quirks'>): boolean;
  /**
   * The provider's own name of the adapter `create(options)` makes (its `ownName ?? name`:
   * `anthropic` for a row `anthropic` adapter named `work-claude`), answered without loading its
   * code: the bundled catalog, the price table and the type's `providerOptions` key know its models
   * by it. Absent: `options.name` (the adapter is its own provider, as a host of no preset is).
   */
  ownName?(options: Pick<ProviderTypeCreateOptions, 'name' | 'preset'>): string;
  /** Creates the adapter; a row with `load` needs it awaited first ({@link createAdapterOfType} does). */
  create(options: ProviderTypeCreateOptions): Adapter;
  /**
   * Loads the code `create` needs, for rows that import their adapter lazily. The front door
   * awaits it before a provider's first call.
   */
  load?(): Promise<void>;
  /**
   * What the adapter `create(options)` makes would declare about a model (by wire name), answered
   * without loading its code: `sy.models()` and `sy.resolve()` describe models with it before any
   * call. A row with `load` and without it is described by the catalog alone until its first call.
   */
  capabilities?(options: ProviderTypeCreateOptions): (wireName: string) => Capabilities;
}

/** A mutable table of provider types, keyed by `type`. */
export type ProviderTypeTable = Map<string, ProviderTypeDefinition>;

/** The provider entry functions the built-in rows create their adapters with. */
export interface BuiltinFactories {
  anthropic: typeof createAnthropic;
  openai: typeof createOpenAI;
  'openai-responses': typeof createOpenAIResponses;
  gemini: typeof createGemini;
  'openai-compatible': typeof createOpenAICompatible;
  bedrock: typeof createBedrock;
  vertex: typeof createVertex;
}

/** The `type` of a built-in row. */
export type BuiltinProviderType = keyof BuiltinFactories;

/** Gives a built-in row its factory: at once (a table bound eagerly, as the tests' support does) or after `load`. */
export interface FactorySource {
  get<Type extends BuiltinProviderType>(type: Type): BuiltinFactories[Type];
  load?(type: BuiltinProviderType): Promise<void>;
}

function common(options: ProviderTypeCreateOptions) {
  return {
    // The adapter's own name (`work-claude`): its model ids, the tag of its parts, its options key.
    name: options.name,
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeout,
    firstByteTimeout: options.firstByteTimeout,
    maxRetries: options.maxRetries,
    headers: options.headers,
    fetch: options.fetch,
    logger: options.logger,
    env: options.env,
  };
}

function presetOf(options: Pick<ProviderTypeCreateOptions, 'preset'>) {
  const name = options.preset;
  return name !== undefined && name in presets ? presets[name as PresetName] : undefined;
}

function compatibleQuirks(
  options: Pick<ProviderTypeCreateOptions, 'preset' | 'quirks'>,
): Partial<ChatQuirks> {
  return { ...presetOf(options)?.quirks, ...options.quirks };
}

type NativeType = Exclude<BuiltinProviderType, 'openai-compatible' | 'bedrock' | 'vertex'>;

/**
 * A cloud row (Bedrock, Vertex): credentials come from the cloud's own chain, so no key is
 * required; `type` may differ from the factory (`bedrock-invoke` is `createBedrock({api:'invoke'})`).
 */
function cloudRow(
  source: FactorySource,
  factory: 'bedrock' | 'vertex',
  facts: Pick<ProviderTypeDefinition, 'type' | 'protocol' | 'nameGrammar' | 'basePath' | 'defaultModel'> & {
    keyVariables: readonly string[];
    fixed?: Record<string, unknown>;
  },
): ProviderTypeDefinition {
  const { keyVariables, fixed, ...rest } = facts;
  return {
    ...rest,
    keyVariables: () => keyVariables,
    keyRequired: () => false,
    ownName: () => factory,
    create: (options) => source.get(factory)({ ...options.options, ...fixed, ...common(options) }),
    capabilities: (options) =>
      declaredCapabilities(factory, { name: options.name, options: { ...options.options, ...fixed } })!,
    ...(source.load === undefined ? {} : { load: () => source.load!(factory) }),
  };
}

/** The emulator's stand-in for a Vertex project endpoint (`/v1/projects/{p}/locations/{l}`). */
const vertexEmulatorPath = '/v1/projects/switchyard-emulator/locations/global';

/** A row of a provider's own API: its key variables and base path come from the provider table. */
function nativeRow(
  source: FactorySource,
  type: NativeType,
  provider: TableProvider,
  facts: Pick<ProviderTypeDefinition, 'protocol' | 'defaultModel'>,
): ProviderTypeDefinition {
  const keyVariables = providerTable[provider].keyVariables;
  return {
    type,
    ...facts,
    basePath: basePathOf(provider),
    keyVariables: () => keyVariables,
    keyRequired: () => true,
    ownName: () => provider,
    create: (options) => source.get(type)({ ...options.options, ...common(options) }),
    capabilities: (options) => declaredCapabilities(type, { name: options.name, options: options.options })!,
    ...(source.load === undefined ? {} : { load: () => source.load!(type) }),
  };
}

/** The built-in rows, in the order `--protocol` lists them; `source` supplies each one's factory. */
export function builtinProviderTypes(source: FactorySource): ProviderTypeDefinition[] {
  return [
    nativeRow(source, 'anthropic', 'anthropic', {
      protocol: 'anthropic-messages',
      defaultModel: 'anthropic:claude-sonnet-4-5',
    }),
    nativeRow(source, 'openai', 'openai', {
      protocol: 'openai-chat',
      defaultModel: 'openai:gpt-4.1-mini',
    }),
    nativeRow(source, 'openai-responses', 'openai', {
      protocol: 'openai-responses',
      defaultModel: 'openai:gpt-5-mini',
    }),
    nativeRow(source, 'gemini', 'gemini', {
      protocol: 'gemini',
      defaultModel: 'gemini:gemini-2.5-flash',
    }),
    {
      type: 'openai-compatible',
      protocol: 'openai-chat',
      basePath: basePathOf('openai'),
      defaultModel: 'openai-compatible:gpt-4.1-mini',
      keyVariables: (options) => {
        const variable = compatibleQuirks(options).apiKeyEnv;
        return variable === undefined ? [] : [variable];
      },
      keyRequired: (options) => compatibleQuirks(options).apiKeyRequired === true,
      // A host of a preset named otherwise (`groq-eu`) is the preset's (`groq`), as the host says.
      ownName: (options) => presetOf(options)?.name ?? options.name,
      create: (options) => {
        // `extends` keeps the preset's model catalog for a host named otherwise (`groq-eu`).
        const preset = presetOf(options)?.name;
        const host = { name: options.name, quirks: compatibleQuirks(options) };
        return source.get('openai-compatible')(preset === undefined ? host : { ...host, extends: preset }, {
          ...options.options,
          ...common(options),
        });
      },
      capabilities: (options) =>
        declaredCapabilities('openai-compatible', {
          name: options.name,
          options: options.options,
          preset: presetOf(options)?.name,
          quirks: compatibleQuirks(options),
        })!,
      ...(source.load === undefined ? {} : { load: () => source.load!('openai-compatible') }),
    },
    cloudRow(source, 'bedrock', {
      type: 'bedrock',
      protocol: 'bedrock-converse',
      defaultModel: 'bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0',
      keyVariables: providerTable.bedrock.keyVariables,
    }),
    cloudRow(source, 'bedrock', {
      type: 'bedrock-invoke',
      protocol: 'bedrock-invoke',
      defaultModel: 'bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0',
      keyVariables: providerTable.bedrock.keyVariables,
      fixed: { protocol: 'invoke' },
    }),
    cloudRow(source, 'vertex', {
      type: 'vertex',
      protocol: 'gemini',
      nameGrammar: 'vertex',
      basePath: vertexEmulatorPath,
      defaultModel: 'vertex:gemini-2.5-flash',
      keyVariables: providerTable.vertex.keyVariables,
    }),
    cloudRow(source, 'vertex', {
      type: 'vertex-anthropic',
      protocol: 'vertex-anthropic',
      nameGrammar: 'vertex',
      basePath: vertexEmulatorPath,
      defaultModel: 'vertex:claude-sonnet-4-5@20250929',
      keyVariables: providerTable.vertex.keyVariables,
    }),
  ];
}

const loaders: { [Type in BuiltinProviderType]: () => Promise<BuiltinFactories[Type]> } = {
  anthropic: async () => (await import('../providers/anthropic/index.ts')).createAnthropic,
  openai: async () => (await import('../providers/openai-chat/index.ts')).createOpenAI,
  'openai-responses': async () =>
    (await import('../providers/openai-responses/index.ts')).createOpenAIResponses,
  gemini: async () => (await import('../providers/gemini/index.ts')).createGemini,
  'openai-compatible': async () =>
    (await import('../providers/openai-compatible/index.ts')).createOpenAICompatible,
  bedrock: async () => (await import('../providers/bedrock/index.ts')).createBedrock,
  vertex: async () => (await import('../providers/vertex/index.ts')).createVertex,
};

/**
 * A new table of the built-in provider types, each row importing its provider's code only when `load()` is
 * awaited. Every client gets its own ({@link registerProviderType} on one is never seen by another).
 */
export function createProviderTypeTable(): ProviderTypeTable {
  const loaded: Partial<BuiltinFactories> = {};
  const source: FactorySource = {
    get(type) {
      const factory = loaded[type];
      if (factory === undefined) throw new Error(`API "${type}" is not loaded: await its load() first`);
      return factory;
    },
    async load(type) {
      (loaded as Record<string, unknown>)[type] ??= await loaders[type]();
    },
  };
  return new Map(builtinProviderTypes(source).map((definition) => [definition.type, definition]));
}

/** Adds (or replaces) a row of `table`; a client created with `{ providerTypes: table }` can then use `type: definition.type`. */
export function registerProviderType(definition: ProviderTypeDefinition, table: ProviderTypeTable): void {
  table.set(definition.type, definition);
}

/** Loads the code of every row of `table` (each row's `load`), so their `create` can be called at once. */
export async function loadProviderTypeTable(table: ProviderTypeTable): Promise<ProviderTypeTable> {
  await Promise.all([...table.values()].map((definition) => definition.load?.()));
  return table;
}

/** Creates the adapter of a row, loading its code first when the row imports it lazily. */
export async function createAdapterOfType(
  definition: ProviderTypeDefinition,
  options: ProviderTypeCreateOptions,
): Promise<Adapter> {
  await definition.load?.();
  return definition.create(options);
}

/** The rows a caller can drive against the emulator: those naming their wire protocol. */
export function emulatedProviderTypes(table: ProviderTypeTable): ProviderTypeDefinition[] {
  return [...table.values()].filter((row) => row.protocol !== undefined);
}

/**
 * The names that select a row: each wire protocol (naming the first row that speaks it), then each
 * `type` not already listed. Only rows naming their protocol count.
 */
export function providerTypeNames(table: ProviderTypeTable): string[] {
  const rows = emulatedProviderTypes(table);
  const names = new Set(rows.map((row) => row.protocol!));
  for (const row of rows) names.add(row.type);
  return [...names];
}

/** The row `name` selects (a wire protocol or a `type`, see {@link providerTypeNames}); `undefined` when none. */
export function findProviderType(table: ProviderTypeTable, name: string): ProviderTypeDefinition | undefined {
  const rows = emulatedProviderTypes(table);
  return rows.find((row) => row.protocol === name) ?? rows.find((row) => row.type === name);
}

/** `unknown API 'x' (did you mean 'y'?)`-style text: the closest known name, else every known name. */
export function unknownNameMessage(kind: string, name: string, known: readonly string[]): string {
  const suggestion = closest(name, known);
  return suggestion === undefined
    ? `unknown ${kind} '${name}' (this version supports ${known.join(', ')})`
    : `unknown ${kind} '${name}' (did you mean '${suggestion}'?)`;
}
