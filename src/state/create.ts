/** Creates the state store a gateway config names: `memory` (default) or a `redis://` URL. */
import type { Logger } from '../core/logger.ts';
import { createMemoryStateStore } from './memory.ts';
import { createRedisStateStore } from './redis.ts';
import type { StateFailureEvent, StateFailurePolicy, StateStore, ValueGroupOptions } from './types.ts';

/** The gateway's state settings (`gateway.state`, `state_timeout_ms`, `on_state_failure`). */
export interface StateStoreSettings extends ValueGroupOptions {
  /** `memory` (default), or `redis://…` / `rediss://…` / `valkey://…`. */
  state?: string;
  /** Default 50. */
  timeoutMs?: number;
  /** Default `open`. */
  onFailure?: StateFailurePolicy;
  /** A metric hook told about every failed state operation. */
  onFailureEvent?: (event: StateFailureEvent) => void;
  logger?: Logger;
  now?: () => number;
  /** Key prefix in Redis. Default `switchyard`. */
  prefix?: string;
}

/** The connection a `gateway.state` URL names: `rediss`/`valkeys` are TLS, `+cluster` a Cluster seed. */
export function redisTarget(state: string): { url: string; cluster: boolean } | undefined {
  const match = /^(redis|rediss|valkey|valkeys)(\+cluster)?:\/\//.exec(state);
  if (match === null) return undefined;
  const secure = match[1] === 'rediss' || match[1] === 'valkeys';
  return {
    url: `${secure ? 'rediss' : 'redis'}://${state.slice(match[0].length)}`,
    cluster: match[2] !== undefined,
  };
}

/** The store for `settings.state`; throws a `TypeError` naming the setting for anything else. */
export function createStateStore(settings: StateStoreSettings = {}): StateStore {
  const state = settings.state ?? 'memory';
  const groups = {
    valueGroupOf: settings.valueGroupOf,
    maxValueBytesPerGroup: settings.maxValueBytesPerGroup,
  };
  if (state === 'memory') return createMemoryStateStore({ now: settings.now, ...groups });
  const target = redisTarget(state);
  if (target === undefined) throw new TypeError("gateway.state: expected 'memory' or a redis:// URL");
  return createRedisStateStore({
    ...target,
    timeoutMs: settings.timeoutMs,
    onFailure: settings.onFailure,
    onFailureEvent: settings.onFailureEvent,
    logger: settings.logger,
    now: settings.now,
    prefix: settings.prefix,
    ...groups,
  });
}
