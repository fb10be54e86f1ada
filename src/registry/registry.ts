/**
 * The model registry: resolves a name — exact canonical id, then alias, then the glob entries in
 * order, then any `provider:name` of a configured adapter — to an adapter and a wire name, creates
 * adapters lazily from the provider-type table, and answers model facts. Adapters whose key is missing are
 * `not_configured`: listed, never created, never called.
 */
import type { Adapter, AdapterSession } from '../core/adapter.ts';
import type { Capabilities, ModelCapabilities } from '../core/capabilities.ts';
import { closest } from '../core/closest.ts';
import { AuthError } from '../core/errors/auth-error.ts';
import { InvalidRequestError } from '../core/errors/invalid-request-error.ts';
import { quoteInput } from '../core/input-check.ts';
import { isGlob, matchesGlob } from '../core/glob.ts';
import { LruCache } from '../core/lru.ts';
import { assertModelName, modelNameProblem } from '../core/model-name.ts';
import { redactSecrets, registerSecrets, secretHeaderValues, urlCredentials } from '../core/redaction.ts';
import { AdapterError } from '../core/errors/adapter-error.ts';
import { presets } from '../providers/openai-compatible/presets.ts';
import type { Logger } from '../core/logger.ts';
import type { ChatQuirks } from '../providers/openai-chat/quirks.ts';
import type { ModelPrices } from '../pricing/types.ts';
import {
  type ProviderTypeCreateOptions,
  type ProviderTypeDefinition,
  type ProviderTypeTable,
  unknownNameMessage,
} from './provider-type-table.ts';
import {
  type AdapterConfig,
  ConfigError,
  type ConfigIssue,
  type ModelConfig,
  type SwitchyardConfig,
} from './config.ts';
import { builtinAdapters, builtinModels } from './defaults.ts';
import { catalogModel, mergeFacts, type ModelFacts } from './model-facts.ts';
import { bundledCatalog } from '../providers/catalog/index.ts';

/** How a name was resolved. */
export type MatchKind = 'exact' | 'alias' | 'glob' | 'provider';

/** A model name resolved to the adapter that serves it. */
export interface ResolvedModel {
  /** Canonical `provider:wireName`, as sent to the adapter. */
  id: string;
  /** The name that was asked for. */
  requested: string;
  /** Adapter name. */
  provider: string;
  wireName: string;
  /** The provider type of the adapter (`anthropic`, `openai-compatible`, …). */
  type: string;
  matchedBy: MatchKind;
  /** The `models:` key that matched (an id or a glob). */
  entry?: string;
  tier?: string;
  aliases: string[];
  /** Ordered fallbacks (ids or aliases), as configured. */
  fallbacks: string[];
  capabilityOverrides?: Partial<Capabilities>;
  pricing?: ModelPrices;
  /** False when the adapter's key is missing (`not_configured`). */
  configured: boolean;
}

/** A model in `models()`. */
export interface ModelListing {
  id: string;
  provider: string;
  aliases: string[];
  tier?: string;
  configured: boolean;
  facts: ModelFacts;
}

interface AdapterSlot {
  name: string;
  config: AdapterConfig;
  definition: ProviderTypeDefinition;
  apiKey: string | undefined;
  missing: readonly string[] | undefined;
  /** False until the row's `load()` (its adapter's code) has resolved; true for rows without one. */
  ready: boolean;
  loading?: Promise<void>;
  /** The row's declared capabilities for this slot's options, built on first use. */
  declared?: (wireName: string) => Capabilities;
  adapter?: Adapter;
}

/** What `createRegistry` needs. */
export interface RegistryOptions {
  config: SwitchyardConfig;
  providerTypes: ProviderTypeTable;
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
  logger?: Logger;
}

/** The model registry. */
export interface Registry {
  /** Resolves a name; throws an `InvalidRequestError` (`unknown_model`) naming what is known. */
  resolve(name: string): ResolvedModel;
  /**
   * Loads the code of `provider`'s adapter (its provider-type row's `load`); `undefined` when it is loaded
   * already (or needs no loading). The router awaits it before a provider's first call.
   */
  load(provider: string): Promise<void> | undefined;
  /**
   * The adapter of `provider`, created on first use (after {@link Registry.load}); throws an
   * `AuthError` (`not_configured`) when its key is missing.
   */
  adapter(provider: string): Adapter;
  /** The merged facts of a resolved model. */
  facts(model: ResolvedModel): ModelFacts;
  /** Every configured model entry and catalog model of every adapter. */
  models(): ModelListing[];
  /** The adapter names, with whether each is configured. */
  providers(): Array<{ name: string; type: string; configured: boolean; missing?: readonly string[] }>;
  /** Ends `session` on every adapter created so far (deletes provider-side state such as Gemini caches). */
  endSession(session: AdapterSession): Promise<void>;
  /** Closes every adapter created so far. */
  close(): Promise<void>;
}

/** Creates a registry from a validated configuration. */
export function createRegistry(options: RegistryOptions): Registry {
  const { config, providerTypes, env } = options;
  const useBuiltins = config.builtins !== false;
  const adapterConfigs = { ...(useBuiltins ? builtinAdapters() : {}), ...config.adapters };
  const slots = new Map<string, AdapterSlot>();
  // Config mistakes are ConfigErrors naming the key, never a TypeError from deep inside.
  const adapterProblems: ConfigIssue[] = [];
  for (const [name, adapterConfig] of Object.entries(adapterConfigs)) {
    const problem = adapterProblem(name, adapterConfig, providerTypes);
    if (problem !== undefined) adapterProblems.push(problem);
    else slots.set(name, createSlot(name, adapterConfig, providerTypes, env));
  }
  // The user's entries first (their globs take precedence), then the bundled ones they did not redefine.
  const userModels = config.models ?? {};
  const bundled = Object.entries(useBuiltins ? builtinModels() : {}).filter(([key]) => !(key in userModels));
  const entries = [...Object.entries(userModels), ...bundled];
  const exact = new Map<string, ModelConfig>();
  const globs: Array<[string, ModelConfig]> = [];
  const aliases = new Map<string, string>();
  const userKeys = new Set(Object.keys(userModels));
  const problems: ConfigIssue[] = [...adapterProblems];
  for (const [key, entry] of Object.entries(userModels)) {
    const adapter = entry?.adapter;
    if (adapter !== undefined && !slots.has(adapter) && !adapterConfigs[adapter])
      problems.push({ path: `models.${key}.adapter`, message: `no adapter named ${quoteInput(adapter)}` });
  }
  for (const [key, entry] of entries) {
    const value = entry ?? {};
    if (isGlob(key)) globs.push([key, value]);
    else exact.set(key, value);
  }
  // The user's aliases win over the bundled ones; two of the user's entries cannot share one, and
  // an alias that is also a model id could never be reached.
  for (const [key, entry] of entries) {
    (entry?.aliases ?? []).forEach((alias, index) => {
      const taken = aliases.get(alias);
      const where = `models.${key}.aliases.${index}`;
      if (userKeys.has(key) && exact.has(alias) && alias !== key) {
        problems.push({ path: where, message: `alias ${quoteInput(alias)} is also a model id` });
      } else if (taken !== undefined && taken !== key && userKeys.has(key)) {
        problems.push({ path: where, message: `alias ${quoteInput(alias)} already names ${taken}` });
      } else if (taken === undefined) aliases.set(alias, key);
    });
  }
  const resolved = new LruCache<string, ResolvedModel>(maxResolvedNames);
  checkWireNames();
  checkFallbacks();
  if (problems.length > 0) throw new ConfigError('', problems);

  /** Every exact entry of the user's names a wire name its adapter's grammar takes. */
  function checkWireNames(): void {
    for (const key of userKeys) {
      if (isGlob(key)) continue;
      const entry = userModels[key];
      const colon = key.indexOf(':');
      const slot = slots.get(entry?.adapter ?? key.slice(0, colon));
      const wireName = entry?.wire_name ?? key.slice(colon + 1);
      const problem = slot === undefined ? undefined : modelNameProblem(wireName, slot.definition.protocol);
      if (problem !== undefined) {
        const where = entry?.wire_name === undefined ? `models.${key}` : `models.${key}.wire_name`;
        problems.push({ path: where, message: `invalid model name ${quoteInput(wireName)}: ${problem}` });
      }
    }
  }

  /** Every fallback of the user's entries must resolve (else every call of the model would fail late). */
  function checkFallbacks(): void {
    for (const key of userKeys) {
      (userModels[key]?.fallbacks ?? []).forEach((fallback, index) => {
        let found: ResolvedModel | undefined;
        try {
          found = find(fallback);
        } catch {
          found = undefined;
        }
        if (found === undefined) {
          problems.push({
            path: `models.${key}.fallbacks.${index}`,
            message: `unknown model ${quoteInput(fallback)}: no model, alias or glob matches it`,
          });
        }
      });
    }
  }

  /**
   * The config's capability overrides of `provider`'s models, as the adapter's `models` option
   * (glob rows, later keys win: bundled entries first, then the user's, the first user entry last),
   * so the adapter's pre-flight check enforces the same facts the router sees.
   */
  function overrideRows(provider: string): ModelCapabilities | undefined {
    let rows: ModelCapabilities | undefined;
    for (const [key, entry] of [...entries].reverse()) {
      if (entry?.capabilities === undefined) continue;
      const colon = key.indexOf(':');
      if ((entry.adapter ?? key.slice(0, colon)) !== provider) continue;
      const wireName = isGlob(key) ? key.slice(colon + 1) : (entry.wire_name ?? key.slice(colon + 1));
      (rows ??= {})[wireName] = { ...rows?.[wireName], ...entry.capabilities };
    }
    return rows;
  }

  function build(requested: string, id: string, matchedBy: MatchKind, key?: string): ResolvedModel {
    const entry =
      key === undefined ? undefined : (exact.get(key) ?? globs.find(([pattern]) => pattern === key)?.[1]);
    const colon = id.indexOf(':');
    const provider = entry?.adapter ?? id.slice(0, colon);
    const slot = slots.get(provider);
    if (slot === undefined) throw unknownModel(requested, `no adapter named "${provider}"`);
    const wireName =
      (matchedBy === 'exact' || matchedBy === 'alias' ? entry?.wire_name : undefined) ?? id.slice(colon + 1);
    // Whatever matched (a glob, a provider prefix), the wire name must be one the provider's grammar takes.
    assertModelName(wireName, slot.definition.protocol, provider);
    const model: ResolvedModel = {
      id: `${provider}:${wireName}`,
      requested,
      provider,
      wireName,
      type: slot.definition.type,
      matchedBy,
      aliases: entry?.aliases ?? [],
      fallbacks: entry?.fallbacks ?? [],
      configured: slot.missing === undefined,
    };
    if (key !== undefined) model.entry = key;
    if (entry?.tier !== undefined) model.tier = entry.tier;
    if (entry?.capabilities !== undefined) model.capabilityOverrides = entry.capabilities;
    if (entry?.pricing !== undefined) model.pricing = entry.pricing;
    return model;
  }

  function find(name: string): ResolvedModel | undefined {
    if (exact.has(name)) return build(name, name, 'exact', name);
    const aliased = aliases.get(name);
    if (aliased !== undefined) {
      if (!isGlob(aliased)) return build(name, aliased, 'alias', aliased);
    }
    const colon = name.indexOf(':');
    for (const [pattern] of globs) {
      if (
        colon > 0 ? matchesGlob(pattern, name) : matchesGlob(pattern.slice(pattern.indexOf(':') + 1), name)
      ) {
        const id = colon > 0 ? name : `${pattern.slice(0, pattern.indexOf(':'))}:${name}`;
        return build(name, id, 'glob', pattern);
      }
    }
    if (colon > 0 && slots.has(name.slice(0, colon))) return build(name, name, 'provider');
    return undefined;
  }

  /**
   * The adapter of `slot`, created on first use (with or without its key); an option the factory
   * refuses is a ConfigError naming the adapter, never a TypeError from deep inside.
   */
  function adapterOf(slot: AdapterSlot): Adapter {
    if (slot.adapter !== undefined) return slot.adapter;
    if (!slot.ready)
      throw new Error(`${slot.name}: the adapter's code is not loaded (await registry.load first)`);
    try {
      slot.adapter = slot.definition.create(createOptions(slot));
    } catch (error) {
      throw asConfigError(slot, error);
    }
    return slot.adapter;
  }

  /** What the slot's row creates its adapter (and answers its capabilities) from. */
  function createOptions(slot: AdapterSlot): ProviderTypeCreateOptions {
    return {
      name: slot.name,
      apiKey: slot.apiKey,
      baseURL: normalizeBaseURL(slot.config.base_url, slot.definition.basePath),
      env,
      timeout: slot.config.timeout_seconds === undefined ? undefined : slot.config.timeout_seconds * 1000,
      firstByteTimeout: routedFirstByteTimeout(slot.config),
      maxRetries: slot.config.max_retries,
      headers: slot.config.headers,
      fetch: options.fetch,
      logger: options.logger,
      preset: slot.config.preset,
      quirks: slot.config.quirks as Partial<ChatQuirks> | undefined,
      options: withOverrideRows(slot.config.options, overrideRows(slot.name)),
    };
  }

  /** Loads the slot's adapter code once; a failure is a ConfigError naming the adapter (and is retried next time). */
  async function loadSlot(slot: AdapterSlot): Promise<void> {
    try {
      await slot.definition.load!();
      slot.ready = true;
    } catch (error) {
      throw asConfigError(slot, error);
    } finally {
      slot.loading = undefined;
    }
  }

  /**
   * What the slot's adapter declares about `wireName`: the adapter's own answer once it exists,
   * else the row's `capabilities` (no code loaded); `undefined` when neither can say yet.
   */
  function declaredOf(slot: AdapterSlot, wireName: string): Capabilities | undefined {
    if (slot.adapter === undefined && slot.definition.capabilities !== undefined) {
      if (slot.declared === undefined) {
        try {
          slot.declared = slot.definition.capabilities(createOptions(slot));
        } catch (error) {
          throw asConfigError(slot, error);
        }
      }
      return slot.declared?.(wireName);
    }
    // A row that loads its code lazily and cannot answer without it: the catalog describes the
    // model until the first call has loaded it.
    if (slot.adapter === undefined && !slot.ready) return undefined;
    // The adapter's own id of the model, as the router sends it (an adapter named otherwise in the
    // config, `work-claude:…`, knows its models as `anthropic:…`).
    const adapter = adapterOf(slot);
    return adapter.capabilities(`${adapter.name}:${wireName}`);
  }

  /** The names a caller may have meant: model ids, aliases and catalog models, bare and `provider:`-prefixed. */
  function knownNames(): string[] {
    const names = new Set<string>([...exact.keys(), ...aliases.keys()]);
    for (const provider of slots.keys()) {
      for (const wireName of Object.keys(bundledCatalog[provider] ?? {})) {
        names.add(`${provider}:${wireName}`);
        names.add(wireName);
      }
    }
    return [...names];
  }

  return {
    resolve(name) {
      let model = resolved.get(name);
      if (model === undefined) {
        model = find(name);
        if (model === undefined) throw unknownModel(name, 'no model, alias or glob matches it', knownNames());
        // LRU-bounded: every distinct name a glob or a provider prefix serves would otherwise stay forever.
        resolved.set(name, model);
      }
      return model;
    },
    load(provider) {
      const slot = slots.get(provider);
      if (slot === undefined || slot.ready) return undefined;
      return (slot.loading ??= loadSlot(slot));
    },
    adapter(provider) {
      const slot = slots.get(provider);
      if (slot === undefined) throw unknownModel(provider, `no adapter named "${provider}"`);
      if (slot.missing !== undefined) throw notConfigured(slot);
      return adapterOf(slot);
    },
    facts(model) {
      // An adapter without its key still declares what its models support (it fails each call, not
      // its creation): the facts are the same configured or not.
      const slot = slots.get(model.provider);
      let capabilities: Capabilities | undefined;
      try {
        if (slot !== undefined) capabilities = declaredOf(slot, model.wireName);
      } catch (error) {
        // A host that cannot be created without its settings (Azure's resource name) is described
        // by the catalog until it is configured.
        if (slot?.missing === undefined) throw error;
      }
      return mergeFacts(
        capabilities,
        catalogModel(model.provider, model.wireName),
        model.capabilityOverrides,
      );
    },
    models() {
      const listed = new Map<string, ModelListing>();
      const add = (id: string) => {
        if (listed.has(id)) return;
        const model = find(id);
        if (model === undefined) return;
        const listing: ModelListing = {
          id: model.id,
          provider: model.provider,
          aliases: model.aliases,
          configured: model.configured,
          facts: this.facts(model),
        };
        if (model.tier !== undefined) listing.tier = model.tier;
        listed.set(id, listing);
      };
      for (const id of exact.keys()) add(id);
      for (const provider of slots.keys()) {
        for (const wireName of Object.keys(bundledCatalog[provider] ?? {})) add(`${provider}:${wireName}`);
      }
      return [...listed.values()];
    },
    providers() {
      return [...slots.values()].map((slot) => ({
        name: slot.name,
        type: slot.definition.type,
        configured: slot.missing === undefined,
        ...(slot.missing === undefined ? {} : { missing: slot.missing }),
      }));
    },
    async endSession(session) {
      const open = [...slots.values()].filter((slot) => slot.adapter !== undefined);
      await Promise.all(open.map((slot) => slot.adapter!.endSession(session)));
    },
    async close() {
      const open = [...slots.values()].filter((slot) => slot.adapter !== undefined);
      await Promise.all(open.map((slot) => slot.adapter!.close()));
      for (const slot of open) delete slot.adapter;
    },
  };
}

/** Why an `adapters:` entry cannot be used (unknown type or preset), or undefined. */
function adapterProblem(
  name: string,
  config: AdapterConfig,
  providerTypes: ProviderTypeTable,
): ConfigIssue | undefined {
  if (!providerTypes.has(config.type)) {
    return {
      path: `adapters.${name}.type`,
      message: unknownNameMessage('type', config.type, [...providerTypes.keys()]),
    };
  }
  if (
    config.type === 'openai-compatible' &&
    config.preset !== undefined &&
    !Object.hasOwn(presets, config.preset)
  ) {
    return {
      path: `adapters.${name}.preset`,
      message: unknownNameMessage('preset', config.preset, Object.keys(presets)),
    };
  }
  return undefined;
}

function createSlot(
  name: string,
  config: AdapterConfig,
  providerTypes: ProviderTypeTable,
  env: Record<string, string | undefined>,
): AdapterSlot {
  const definition = providerTypes.get(config.type);
  if (definition === undefined) {
    throw new TypeError(
      `adapter "${name}": ${unknownNameMessage('type', config.type, [...providerTypes.keys()])}`,
    );
  }
  const keyOptions = {
    name,
    preset: config.preset,
    quirks: config.quirks as Partial<ChatQuirks> | undefined,
  };
  const variables =
    config.api_key_env === undefined ? definition.keyVariables(keyOptions) : [config.api_key_env];
  let apiKey = config.api_key;
  for (const variable of variables) {
    if (apiKey !== undefined) break;
    const value = env[variable];
    if (value !== undefined && value.trim() !== '') apiKey = value;
  }
  // Known to every redaction from now on, whether or not the adapter is ever created.
  registerSecrets([apiKey, ...secretHeaderValues(config.headers), ...urlCredentials(config.base_url)]);
  const missing = apiKey === undefined && definition.keyRequired(keyOptions) ? variables : undefined;
  return { name, config, definition, apiKey, missing, ready: definition.load === undefined };
}

/** A failure creating (or loading) an adapter as a ConfigError naming it, never a TypeError from deep inside. */
function asConfigError(slot: AdapterSlot, error: unknown): Error {
  if (AdapterError.isInstance(error) || error instanceof ConfigError) return error as Error;
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  return new ConfigError('', [{ path: `adapters.${slot.name}`, message }]);
}

/** The `AuthError` of an adapter whose key is missing. */
export function notConfigured(slot: { name: string; missing?: readonly string[] }): AuthError {
  const hint =
    slot.missing === undefined || slot.missing.length === 0
      ? 'configure an API key'
      : `set ${slot.missing.join(' or ')}`;
  return new AuthError({
    message: `${slot.name} is not configured: ${hint}`,
    provider: slot.name,
    providerCode: 'not_configured',
  });
}

/**
 * A config `base_url` as the adapter takes it: a bare origin (`http://localhost:8080`, no path)
 * gets the protocol's version path (`/v1`, `/v1beta`), as the SDK conventions without `/v1` expect;
 * a URL with any path is used as written (`https://host/openai/v1`).
 */
export function normalizeBaseURL(
  baseURL: string | undefined,
  basePath: string | undefined,
): string | undefined {
  // Only a version path (`/v1`, `/v1beta`) is added: a cloud row's base path names the emulator's project.
  if (baseURL === undefined || basePath === undefined || !/^\/v\d+[a-z0-9]*$/.test(basePath)) return baseURL;
  const trimmed = baseURL.trim().replace(/\/+$/, '');
  let path: string;
  try {
    path = new URL(trimmed).pathname;
  } catch {
    return baseURL;
  }
  return path === '' || path === '/' ? trimmed + basePath : trimmed;
}

/** Resolved names remembered (a cache; cleared when full). */
const maxResolvedNames = 1024;

function unknownModel(name: string, why: string, known: readonly string[] = []): InvalidRequestError {
  // Only a short name is compared: the edit distance is quadratic in its length.
  const suggestion = name.length <= 100 ? closest(name, known) : undefined;
  const hint = suggestion === undefined ? '' : ` (did you mean ${quoteInput(suggestion)}?)`;
  return new InvalidRequestError({
    // Quoted and cut: the name is the caller's and may be long or hold control characters.
    message: `unknown model ${quoteInput(name)}: ${why}${hint}`,
    providerCode: 'unknown_model',
  });
}

/** Adapter options with the config's capability rows added to any `models` the options carry. */
function withOverrideRows(
  options: Record<string, unknown> | undefined,
  rows: ModelCapabilities | undefined,
): Record<string, unknown> | undefined {
  if (rows === undefined) return options;
  const given = options?.models as ModelCapabilities | undefined;
  return { ...options, models: { ...given, ...rows } };
}

/**
 * The first-byte timeout of a routed call, ms: `first_byte_timeout_seconds`, else an adapter
 * option `firstByteTimeout`, else 30 s — a hung target then fails over within 30 s instead of the
 * adapter default's 120 s per attempt.
 */
export const routedFirstByteTimeoutMs = 30_000;

export function routedFirstByteTimeout(config: {
  first_byte_timeout_seconds?: number;
  options?: Record<string, unknown>;
}): number {
  if (config.first_byte_timeout_seconds !== undefined) return config.first_byte_timeout_seconds * 1000;
  const given = config.options?.firstByteTimeout;
  return typeof given === 'number' ? given : routedFirstByteTimeoutMs;
}
