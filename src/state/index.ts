/**
 * `switchyard-ai/state`: the state a gateway shares between its instances (rate limits, budgets,
 * the routing circuit breaker, stored Responses), in memory (one process, the default) or in Redis.
 */
export { createMemoryStateStore, type MemoryStateStoreOptions } from './memory.ts';
export { StateUnavailableError } from './outage.ts';
export { createRedisStateStore, type RedisStateStore, type RedisStateStoreOptions } from './redis.ts';
export {
  type Admission,
  type AdmitRequest,
  type KeyBudget,
  type KeyLimits,
  type KeyUsage,
  periodsOf,
  type Reservation,
  type SetOptions,
  type Settlement,
  type StateFailureEvent,
  type StateFailurePolicy,
  type StateStore,
  toMicros,
} from './types.ts';
export { createStateStore, type StateStoreSettings } from './create.ts';
