/**
 * Adapter slots: one per `adapters:` entry — its API row, its key from the environment (or why it
 * is missing) — and the adapter it creates on first use.
 */
import type { Adapter } from '../core/adapter.ts';
import type { ModelCapabilities } from '../core/capabilities.ts';
import { AdapterError } from '../core/errors/adapter-error.ts';
import { AuthError } from '../core/errors/auth-error.ts';
import type { Logger } from '../core/logger.ts';
import { redactSecrets, registerSecrets, secretHeaderValues, urlCredentials } from '../core/redaction.ts';
import { presets } from '../providers/openai-compatible/presets.ts';
import type { ChatQuirks } from '../providers/openai-chat/quirks.ts';
import { type ApiDefinition, type ApiTable, unknownApiMessage } from './api-table.ts';
import { type AdapterConfig, ConfigError, type ConfigIssue } from './config.ts';

/** One configured adapter: its config, API row and key, and the adapter once created. */
export interface AdapterSlot {
  name: string;
  config: AdapterConfig;
  api: ApiDefinition;
  apiKey: string | undefined;
  /** The key variables of an adapter whose key is missing (`not_configured`); undefined when configured. */
  missing: readonly string[] | undefined;
  adapter?: Adapter;
}

/** What every adapter a slot creates is given besides its own config. */
export interface SlotContext {
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
  logger?: Logger;
}

/**
 * A slot per usable `adapters:` entry, by name; an entry of an unknown type or preset is a problem
 * naming its key (never a TypeError from deep inside).
 */
export function createSlots(
  adapterConfigs: Record<string, AdapterConfig>,
  apis: ApiTable,
  env: Record<string, string | undefined>,
): { slots: Map<string, AdapterSlot>; problems: ConfigIssue[] } {
  const slots = new Map<string, AdapterSlot>();
  const problems: ConfigIssue[] = [];
  for (const [name, adapterConfig] of Object.entries(adapterConfigs)) {
    const problem = adapterProblem(name, adapterConfig, apis);
    if (problem !== undefined) problems.push(problem);
    else slots.set(name, createSlot(name, adapterConfig, apis, env));
  }
  return { slots, problems };
}

/** Why an `adapters:` entry cannot be used (unknown type or preset), or undefined. */
function adapterProblem(name: string, config: AdapterConfig, apis: ApiTable): ConfigIssue | undefined {
  if (!apis.has(config.type)) {
    return {
      path: `adapters.${name}.type`,
      message: unknownApiMessage('type', config.type, [...apis.keys()]),
    };
  }
  if (
    config.type === 'openai-compatible' &&
    config.preset !== undefined &&
    !Object.hasOwn(presets, config.preset)
  ) {
    return {
      path: `adapters.${name}.preset`,
      message: unknownApiMessage('preset', config.preset, Object.keys(presets)),
    };
  }
  return undefined;
}

function createSlot(
  name: string,
  config: AdapterConfig,
  apis: ApiTable,
  env: Record<string, string | undefined>,
): AdapterSlot {
  const api = apis.get(config.type);
  if (api === undefined) {
    throw new TypeError(`adapter "${name}": ${unknownApiMessage('type', config.type, [...apis.keys()])}`);
  }
  const keyOptions = {
    name,
    preset: config.preset,
    quirks: config.quirks as Partial<ChatQuirks> | undefined,
  };
  const variables = config.api_key_env === undefined ? api.keyVariables(keyOptions) : [config.api_key_env];
  let apiKey = config.api_key;
  for (const variable of variables) {
    if (apiKey !== undefined) break;
    const value = env[variable];
    if (value !== undefined && value.trim() !== '') apiKey = value;
  }
  // Known to every redaction from now on, whether or not the adapter is ever created.
  registerSecrets([apiKey, ...secretHeaderValues(config.headers), ...urlCredentials(config.base_url)]);
  const missing = apiKey === undefined && api.keyRequired(keyOptions) ? variables : undefined;
  return { name, config, api, apiKey, missing };
}

/**
 * The adapter of `slot`, created on first use (with or without its key) with the config's
 * capability rows (`rows`); an option the factory refuses is a ConfigError naming the adapter,
 * never a TypeError from deep inside.
 */
export function slotAdapter(
  slot: AdapterSlot,
  context: SlotContext,
  rows: () => ModelCapabilities | undefined,
): Adapter {
  if (slot.adapter !== undefined) return slot.adapter;
  try {
    slot.adapter = slot.api.create({
      name: slot.name,
      apiKey: slot.apiKey,
      baseURL: normalizeBaseURL(slot.config.base_url, slot.api.basePath),
      env: context.env,
      timeout: slot.config.timeout_seconds === undefined ? undefined : slot.config.timeout_seconds * 1000,
      firstByteTimeout: routedFirstByteTimeout(slot.config),
      maxRetries: slot.config.max_retries,
      headers: slot.config.headers,
      fetch: context.fetch,
      logger: context.logger,
      preset: slot.config.preset,
      quirks: slot.config.quirks as Partial<ChatQuirks> | undefined,
      options: withOverrideRows(slot.config.options, rows()),
    });
  } catch (error) {
    if (AdapterError.isInstance(error) || error instanceof ConfigError) throw error;
    const message = redactSecrets(error instanceof Error ? error.message : String(error));
    throw new ConfigError('', [{ path: `adapters.${slot.name}`, message }]);
  }
  return slot.adapter;
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
