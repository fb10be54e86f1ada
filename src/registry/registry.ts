/**
 * The model registry: resolves a name — exact canonical id, then alias, then the glob entries in
 * order, then any `provider:name` of a configured adapter — to an adapter and a wire name, creates
 * adapters lazily from the provider-type table, and answers model facts. Adapters whose key is missing are
 * `not_configured`: listed, never created, never called. Its parts: the adapter slots
 * (`slots.ts`), the model table (`model-table.ts`) and name resolution (`resolve.ts`).
 */
import type { Adapter, AdapterSession } from '../core/adapter.ts';
import type { Capabilities } from '../core/capabilities.ts';
import type { Logger } from '../core/logger.ts';
import { LruCache } from '../core/lru.ts';
import { bundledCatalog } from '../providers/catalog/index.ts';
import { ConfigError, type SwitchyardConfig } from './config.ts';
import { builtinAdapters } from './defaults.ts';
import { catalogModel, mergeFacts, type ModelFacts } from './model-facts.ts';
import { createModelTable, overrideRows } from './model-table.ts';
import type { ProviderTypeTable } from './provider-type-table.ts';
import {
  createFinder,
  fallbackProblems,
  type FindModel,
  knownNames,
  type ResolvedModel,
  unknownModel,
} from './resolve.ts';
import {
  type AdapterSlot,
  createSlots,
  declaredOf,
  loadSlot,
  notConfigured,
  type SlotContext,
  slotAdapter,
} from './slots.ts';

export type { MatchKind, ResolvedModel } from './resolve.ts';
export {
  normalizeBaseURL,
  notConfigured,
  routedFirstByteTimeout,
  routedFirstByteTimeoutMs,
} from './slots.ts';

/** A model in `models()`. */
export interface ModelListing {
  /**
   * The name it is listed by: a config entry's own key (`local:my-finetune`, whose `wire_name`
   * may differ), else the catalog model's `provider:wireName`. Resolving it gives this entry, with
   * its aliases and pricing.
   */
  id: string;
  provider: string;
  aliases: string[];
  tier?: string;
  configured: boolean;
  /**
   * Why its configured adapter cannot serve it as set up (Vertex in express mode: Gemini only),
   * when it cannot: routing skips it, and the gateway does not list it. Absent when it may be served.
   */
  unserved?: string;
  facts: ModelFacts;
}

/** What `createRegistry` needs. */
export interface RegistryOptions {
  config: SwitchyardConfig;
  providerTypes: ProviderTypeTable;
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
  /** Connections per origin of every adapter's pool unless its config's `options` set its own. */
  maxConnections?: number;
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

/** Creates a registry from a validated configuration; every config problem at once is one `ConfigError`. */
export function createRegistry(options: RegistryOptions): Registry {
  const { config, providerTypes, env } = options;
  const adapterConfigs = { ...(config.builtins === false ? {} : builtinAdapters()), ...config.adapters };
  const created = createSlots(adapterConfigs, providerTypes, env);
  const { slots } = created;
  const { table, problems: modelProblems } = createModelTable(config, adapterConfigs, slots);
  const find = createFinder(table, slots);
  const problems = [...created.problems, ...modelProblems, ...fallbackProblems(table, find)];
  if (problems.length > 0) throw new ConfigError('', problems);

  const context: SlotContext = {
    env,
    fetch: options.fetch,
    maxConnections: options.maxConnections,
    logger: options.logger,
    overrideRows: (provider) => overrideRows(table, provider),
  };
  const adapterOf = (slot: AdapterSlot) => slotAdapter(slot, context);
  const resolved = new LruCache<string, ResolvedModel>(maxResolvedNames);
  const facts = (model: ResolvedModel) => modelFacts(model, slots.get(model.provider), context);
  const resolves = (candidate: string) => {
    try {
      return find(candidate) !== undefined;
    } catch {
      return false;
    }
  };
  const createdSlots = () => [...slots.values()].filter((slot) => slot.adapter !== undefined);

  return {
    resolve(name) {
      let model = resolved.get(name);
      if (model === undefined) {
        model = find(name);
        if (model === undefined)
          throw unknownModel(name, 'no model, alias or glob matches it', knownNames(table, slots), resolves);
        // LRU-bounded: every distinct name a glob or a provider prefix serves would otherwise stay forever.
        resolved.set(name, model);
      }
      return model;
    },
    load(provider) {
      const slot = slots.get(provider);
      return slot === undefined ? undefined : loadSlot(slot);
    },
    adapter(provider) {
      const slot = slots.get(provider);
      if (slot === undefined) throw unknownModel(provider, `no adapter named "${provider}"`);
      if (slot.missing !== undefined) throw notConfigured(slot);
      return adapterOf(slot);
    },
    facts,
    models: () =>
      listModels([...table.exact.keys()], slots, find, facts, (model) => {
        const slot = slots.get(model.provider);
        // Asked only of an adapter that is configured and loaded (creating it sends nothing); one
        // that fails to create is listed as before, and its calls say why.
        if (!model.configured || slot === undefined || !slot.ready) return undefined;
        try {
          return adapterOf(slot).unservedReason?.(model.wireName);
        } catch {
          return undefined;
        }
      }),
    providers() {
      return [...slots.values()].map((slot) => ({
        name: slot.name,
        type: slot.definition.type,
        configured: slot.missing === undefined,
        ...(slot.missing === undefined ? {} : { missing: slot.missing }),
      }));
    },
    async endSession(session) {
      await Promise.all(createdSlots().map((slot) => slot.adapter!.endSession(session)));
    },
    async close() {
      const open = createdSlots();
      await Promise.all(open.map((slot) => slot.adapter!.close()));
      for (const slot of open) delete slot.adapter;
    },
  };
}

/**
 * The merged facts of `model`: what its adapter declares, the catalog row and the config's
 * overrides. An adapter without its key still declares what its models support (it fails each
 * call, not its creation): the facts are the same configured or not.
 */
function modelFacts(model: ResolvedModel, slot: AdapterSlot | undefined, context: SlotContext): ModelFacts {
  let capabilities: Capabilities | undefined;
  try {
    if (slot !== undefined) capabilities = declaredOf(slot, model.wireName, context);
  } catch (error) {
    // A host that cannot be created without its settings (Azure's resource name) is described
    // by the catalog until it is configured.
    if (slot?.missing === undefined) throw error;
  }
  // An adapter named otherwise (`work-claude`) finds its rows under its provider's name (`anthropic`).
  const catalog = catalogModel(model.ownName ?? model.provider, model.wireName);
  return mergeFacts(capabilities, catalog, model.capabilityOverrides);
}

/**
 * Every exact entry (`ids`), then every catalog model of every adapter (its own provider's rows,
 * under its name), once each, with its facts.
 */
function listModels(
  ids: readonly string[],
  slots: ReadonlyMap<string, AdapterSlot>,
  find: FindModel,
  facts: (model: ResolvedModel) => ModelFacts,
  unserved: (model: ResolvedModel) => string | undefined,
): ModelListing[] {
  const listed = new Map<string, ModelListing>();
  const add = (id: string) => {
    if (listed.has(id)) return;
    const model = find(id);
    if (model === undefined) return;
    const listing: ModelListing = {
      // The entry's key, not `provider:wireName`: resolving that would miss the entry's pricing.
      id,
      provider: model.provider,
      aliases: model.aliases,
      configured: model.configured,
      facts: facts(model),
    };
    if (model.tier !== undefined) listing.tier = model.tier;
    const reason = unserved(model);
    if (reason !== undefined) listing.unserved = reason;
    listed.set(id, listing);
  };
  for (const id of ids) add(id);
  // Each adapter's own provider's catalog, under the adapter's name (`work-claude:…` for `anthropic`'s).
  for (const [provider, slot] of slots) {
    for (const wireName of Object.keys(bundledCatalog[slot.ownName] ?? {})) add(`${provider}:${wireName}`);
  }
  return [...listed.values()];
}

/** Resolved names remembered (a cache; cleared when full). */
const maxResolvedNames = 1024;
