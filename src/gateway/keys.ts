/**
 * Gateway keys: each with a name, the key (from an environment variable, or only its SHA-256
 * digest) and the models it may use. Keys arrive as each protocol sends them: `Authorization:
 * Bearer`, `x-api-key`, `x-goog-api-key` or `?key=`. Compared by digest in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { splitModelId } from '../core/ids.ts';
import { matchesAnyGlob } from '../core/glob.ts';
import type { KeyBudget, KeyLimits } from '../state/types.ts';
import { shown } from '../codecs/fields.ts';
import type { WireError } from '../codecs/types.ts';
import type { GatewayKeyConfig } from './config.ts';

/** A key ready to check. */
export interface GatewayKey {
  name: string;
  digest: Buffer;
  /** Allowed model names or globs; `undefined` allows every model. */
  models: readonly string[] | undefined;
  /**
   * The entries of `models` that also match a model's canonical id without its provider prefix:
   * those without a prefix that are not aliases (see {@link withBareModels}).
   */
  bareModels?: readonly string[];
  limits?: KeyLimits;
  budget?: KeyBudget;
  /** May read every key's usage. */
  admin?: boolean;
  /** The most of its requests in flight at once on this instance (`max_in_flight`). */
  maxInFlight?: number;
  /** The most WebSockets it may hold open at once on this instance (`max_websockets`, default {@link defaultMaxWebsockets}). */
  maxWebsockets: number;
}

/**
 * A key's open WebSockets per instance when its config says none (`max_websockets`): each socket
 * holds a connection, up to 64 requests and a message's bytes; a key's clients need a handful.
 */
export const defaultMaxWebsockets = 256;

/** The key's limits and budget in the state store's terms (absent when none is configured). */
function quotaOf(config: GatewayKeyConfig): Pick<GatewayKey, 'limits' | 'budget'> {
  const quota: Pick<GatewayKey, 'limits' | 'budget'> = {};
  if (config.limits !== undefined)
    quota.limits = {
      requestsPerMinute: config.limits.requests_per_minute,
      tokensPerMinute: config.limits.tokens_per_minute,
    };
  if (config.budget !== undefined)
    quota.budget = { usdPerDay: config.budget.usd_per_day, usdPerMonth: config.budget.usd_per_month };
  return quota;
}

function digestOf(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * Resolves the configured keys; a `key_env` naming an unset variable is an error naming the
 * variable, and two entries whose secrets are the same (two variables holding one value, or a
 * variable holding a configured digest's key) an error naming both.
 */
export function loadKeys(
  configs: readonly GatewayKeyConfig[],
  env: Record<string, string | undefined>,
): GatewayKey[] {
  const owners = new Map<string, string>();
  return configs.map((config) => {
    let digest: Buffer;
    if (config.key_env !== undefined) {
      const value = env[config.key_env];
      if (value === undefined || value === '')
        throw new Error(`gateway key '${config.name}': the variable ${config.key_env} is not set`);
      digest = digestOf(value);
    } else {
      digest = Buffer.from(config.key!.slice('sha256:'.length), 'hex');
    }
    // One secret under two names: whoever holds it would be served as the first of them alone.
    const owner = owners.get(digest.toString('hex'));
    if (owner !== undefined)
      throw new Error(
        `gateway key '${config.name}': its key is the same as gateway key '${owner}'s: each key needs a secret of its own`,
      );
    owners.set(digest.toString('hex'), config.name);
    return {
      name: config.name,
      digest,
      models: config.models,
      ...(config.max_in_flight === undefined ? {} : { maxInFlight: config.max_in_flight }),
      maxWebsockets: config.max_websockets ?? defaultMaxWebsockets,
      ...quotaOf(config),
      admin: config.admin === true,
    };
  });
}

/**
 * The key a request presents, in any protocol's way of sending it: `header` reads a request header,
 * `query` the `?key=` parameter.
 */
export function presentedKey(
  header: (name: string) => string | undefined,
  query: () => string | undefined,
): string | undefined {
  const authorization = header('authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match !== null) return match[1];
  }
  return header('x-api-key') ?? header('x-goog-api-key') ?? query();
}

/** The configured key matching `presented`, compared by digest in constant time. */
export function findKey(keys: readonly GatewayKey[], presented: string | undefined): GatewayKey | undefined {
  if (presented === undefined) return undefined;
  const digest = digestOf(presented);
  let found: GatewayKey | undefined;
  for (const key of keys) if (timingSafeEqual(key.digest, digest)) found ??= key;
  return found;
}

/** The 403 of a model outside the key's `models`. */
export function modelForbidden(model: string): WireError {
  return {
    status: 403,
    errorClass: 'auth',
    code: 'permission_error',
    message: `this key may not use model '${shown(model)}'`,
  };
}

/**
 * The names a key's `models` may allow a resolved model by: the name sent, the canonical id it
 * resolved to (`provider:wireName`) and, for a config entry (an exact id or one of its aliases), the
 * entry's own key, which `sy.models()` lists it by (`local:my-finetune` whose wire name is
 * `my-finetune-q4`). A glob entry's pattern is no name of the model.
 */
export function namesOf(
  name: string,
  model: { id: string; entry?: string; matchedBy: string } | undefined,
): string[] {
  if (model === undefined) return [name];
  const { id, entry, matchedBy } = model;
  return entry !== undefined && entry !== id && (matchedBy === 'exact' || matchedBy === 'alias')
    ? [name, id, entry]
    : [name, id];
}

/**
 * Whether `key` may use a model: any of its `names` (the name sent, the canonical id it resolved
 * to, the config entry's own key, its aliases) matches an entry of the key's `models`, or its
 * canonical `id` without the provider prefix (the registry's, never the client's text) matches an
 * entry without a prefix that is no alias ({@link withBareModels}). So `gpt-5*` allows GPT-5 by
 * any of its names at whichever configured provider serves it, `openai:*` only OpenAI's models,
 * and an alias (`mine`) only what it names, under that name.
 */
export function allowsModel(key: GatewayKey | undefined, names: readonly string[], id?: string): boolean {
  if (key?.models === undefined) return true;
  if (names.some((name) => matchesAnyGlob(key.models!, name))) return true;
  const bare = key.bareModels;
  if (id === undefined || bare === undefined || bare.length === 0) return false;
  const { provider, name } = splitModelId(id);
  return provider !== undefined && matchesAnyGlob(bare, name);
}

/**
 * Each key's {@link GatewayKey.bareModels}: its `models` entries without a provider prefix that do
 * not name an alias (`isAlias`: the registry's; an alias stands for its target only, so a key given
 * `gpt-4o-mini`, an alias of a local model, cannot reach `openai:gpt-4o-mini` by it).
 */
export function withBareModels(keys: GatewayKey[], isAlias: (name: string) => boolean): GatewayKey[] {
  for (const key of keys)
    if (key.models !== undefined)
      key.bareModels = key.models.filter((entry) => !entry.includes(':') && !isAlias(entry));
  return keys;
}
