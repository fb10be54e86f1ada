/**
 * Adapter slots: one per `adapters:` entry — its provider-type row, its key from the environment
 * (or why it is missing) — the adapter code it loads, what it declares about a model, and the
 * adapter it creates on first use.
 */
import type { Adapter } from '../core/adapter.ts';
import type { Capabilities, ModelCapabilities } from '../core/capabilities.ts';
import { AdapterError } from '../core/errors/adapter-error.ts';
import { AuthError } from '../core/errors/auth-error.ts';
import type { Logger } from '../core/logger.ts';
import {
  redactSecrets,
  registerConfiguredSecrets,
  secretHeaderValues,
  urlCredentials,
} from '../core/redaction.ts';
import { presets } from '../providers/openai-compatible/presets.ts';
import type { ChatQuirks } from '../providers/openai-chat/quirks.ts';
import {
  type ProviderTypeCreateOptions,
  type ProviderTypeDefinition,
  type ProviderTypeTable,
  unknownNameMessage,
} from './provider-type-table.ts';
import { type AdapterConfig, ConfigError, type ConfigIssue } from './config.ts';

/** One configured adapter: its config, provider-type row and key, and the adapter once created. */
export interface AdapterSlot {
  name: string;
  /**
   * The provider's own name of its adapter (its row's `ownName`: `anthropic` for `work-claude` of
   * type `anthropic`), which the bundled catalog knows its models by; `name` when it is its own.
   */
  ownName: string;
  config: AdapterConfig;
  definition: ProviderTypeDefinition;
  apiKey: string | undefined;
  /** The key variables of an adapter whose key is missing (`not_configured`); undefined when configured. */
  missing: readonly string[] | undefined;
  /** False until the row's `load()` (its adapter's code) has resolved; true for rows without one. */
  ready: boolean;
  loading?: Promise<void>;
  /** The row's declared capabilities for this slot's options, built on first use. */
  declared?: (wireName: string) => Capabilities;
  adapter?: Adapter;
}

/** What every adapter a slot creates is given besides its own config. */
export interface SlotContext {
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
  /** Connections per origin of an adapter's pool when its own `options.maxConnections` does not say. */
  maxConnections?: number;
  logger?: Logger;
  /** The config's capability rows of an adapter (its `models` option). */
  overrideRows(provider: string): ModelCapabilities | undefined;
}

/**
 * A slot per usable `adapters:` entry, by name; an entry of an unknown type or preset is a problem
 * naming its key (never a TypeError from deep inside).
 */
export function createSlots(
  adapterConfigs: Record<string, AdapterConfig>,
  providerTypes: ProviderTypeTable,
  env: Record<string, string | undefined>,
): { slots: Map<string, AdapterSlot>; problems: ConfigIssue[] } {
  const slots = new Map<string, AdapterSlot>();
  const problems: ConfigIssue[] = [];
  for (const [name, adapterConfig] of Object.entries(adapterConfigs)) {
    const problem = adapterProblem(name, adapterConfig, providerTypes);
    if (problem !== undefined) problems.push(problem);
    else slots.set(name, createSlot(name, adapterConfig, providerTypes, env));
  }
  return { slots, problems };
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
  const missing = apiKey === undefined && definition.keyRequired(keyOptions) ? variables : undefined;
  const slot: AdapterSlot = {
    name,
    ownName: definition.ownName?.({ name, preset: config.preset }) ?? name,
    config,
    definition,
    apiKey,
    missing,
    ready: definition.load === undefined,
  };
  // Known to every redaction while the slot lives, whether or not the adapter is ever created.
  registerConfiguredSecrets(slot, [
    apiKey,
    ...secretHeaderValues(config.headers),
    ...urlCredentials(config.base_url),
  ]);
  return slot;
}

/**
 * The adapter of `slot`, created on first use (with or without its key, after {@link loadSlot});
 * an option the factory refuses is a ConfigError naming the adapter, never a TypeError from deep inside.
 */
export function slotAdapter(slot: AdapterSlot, context: SlotContext): Adapter {
  if (slot.adapter !== undefined) return slot.adapter;
  if (!slot.ready)
    throw new Error(`${slot.name}: the adapter's code is not loaded (await registry.load first)`);
  try {
    slot.adapter = slot.definition.create(createOptions(slot, context));
  } catch (error) {
    throw asConfigError(slot, error);
  }
  return slot.adapter;
}

/** What the slot's row creates its adapter (and answers its capabilities) from. */
function createOptions(slot: AdapterSlot, context: SlotContext): ProviderTypeCreateOptions {
  return {
    name: slot.name,
    apiKey: slot.apiKey,
    baseURL: normalizeBaseURL(slot.config.base_url, slot.definition.basePath),
    env: context.env,
    timeout: slot.config.timeout_seconds === undefined ? undefined : slot.config.timeout_seconds * 1000,
    firstByteTimeout: routedFirstByteTimeout(slot.config),
    maxRetries: slot.config.max_retries,
    headers: slot.config.headers,
    fetch: context.fetch,
    logger: context.logger,
    preset: slot.config.preset,
    quirks: slot.config.quirks as Partial<ChatQuirks> | undefined,
    options: withOverrideRows(
      withMaxConnections(slot.config.options, context.maxConnections),
      context.overrideRows(slot.name),
    ),
  };
}

/** Loads the slot's adapter code once; a failure is a ConfigError naming the adapter (and is retried next time). */
export function loadSlot(slot: AdapterSlot): Promise<void> | undefined {
  if (slot.ready) return undefined;
  return (slot.loading ??= (async () => {
    try {
      await slot.definition.load!();
      slot.ready = true;
    } catch (error) {
      throw asConfigError(slot, error);
    } finally {
      slot.loading = undefined;
    }
  })());
}

/**
 * What the slot's adapter declares about `wireName`: the adapter's own answer once it exists,
 * else the row's `capabilities` (no code loaded); `undefined` when neither can say yet.
 */
export function declaredOf(
  slot: AdapterSlot,
  wireName: string,
  context: SlotContext,
): Capabilities | undefined {
  if (slot.adapter === undefined && slot.definition.capabilities !== undefined) {
    if (slot.declared === undefined) {
      try {
        slot.declared = slot.definition.capabilities(createOptions(slot, context));
      } catch (error) {
        throw asConfigError(slot, error);
      }
    }
    return slot.declared?.(wireName);
  }
  // A row that loads its code lazily and cannot answer without it: the catalog describes the
  // model until the first call has loaded it.
  if (slot.adapter === undefined && !slot.ready) return undefined;
  // The adapter's own id of the model, as the router sends it (`work-claude:…`: the row creates
  // each adapter under its config name).
  const adapter = slotAdapter(slot, context);
  return adapter.capabilities(`${adapter.name}:${wireName}`);
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

/** An adapter's options with the front door's `maxConnections` unless they set their own. */
function withMaxConnections(
  options: Record<string, unknown> | undefined,
  maxConnections: number | undefined,
): Record<string, unknown> | undefined {
  if (maxConnections === undefined || options?.maxConnections !== undefined) return options;
  return { ...options, maxConnections };
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
