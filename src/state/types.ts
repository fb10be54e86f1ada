/**
 * The state a gateway keeps per key and shares between its instances: rate limits, budgets,
 * availability (the routing circuit breaker) and stored Responses. One interface, two stores: in
 * memory (one process, the default) and Redis (any number of processes).
 */
import type { AvailabilityStore } from '../routing/availability.ts';

/** Per-key rate limits (`gateway.keys[].limits`). Absent or 0: unlimited. */
export interface KeyLimits {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

/** Per-key budget in USD (`gateway.keys[].budget`), per UTC day and month. Absent: unlimited. */
export interface KeyBudget {
  usdPerDay?: number;
  usdPerMonth?: number;
}

/** What `admit` is asked before a call is dispatched. */
export interface AdmitRequest {
  /** The gateway key's name. */
  key: string;
  /** Tokens reserved for the call: the input estimate plus `max_tokens`. */
  tokens: number;
  limits?: KeyLimits;
  budget?: KeyBudget;
  /** Cost reserved against the budget while the call is in flight, micro-dollars (0: none). */
  reserveMicros?: number;
}

/** What `admit` reserved; hand it back to `settle` once the call has ended. */
export interface Reservation {
  key: string;
  tokens: number;
  reserveMicros: number;
  /** Unique per admission (a budget reservation's member). */
  id: string;
  /** The UTC day and month the reservation counts in (`20261126`, `202611`). */
  day: string;
  month: string;
  tokensPerMinute: number;
  /** True when the shared store could not be reached and local state answered (policy `open`). */
  local?: boolean;
  /** When the shared store drops the reservation if it is never settled (ms, the store's clock). */
  expiresAt?: number;
}

/** The verdict of `admit`. */
export type Admission =
  | { allowed: true; reservation: Reservation }
  | {
      allowed: false;
      reason: 'rate_limit';
      /** Which limit refused: requests or tokens per minute. */
      limit: 'requests' | 'tokens';
      /** When a retry can succeed, seconds (rounded up, at least 1). */
      retryAfterSeconds: number;
    }
  | {
      allowed: false;
      reason: 'budget_exceeded';
      period: 'day' | 'month';
      /** Spent plus reserved by calls in flight, micro-dollars. */
      spentMicros: number;
      limitMicros: number;
    };

/** What a call really used, for `settle`. */
export interface Settlement {
  /** Billed tokens (input + output); the reservation is corrected by the difference. */
  tokens: number;
  /** Billed cost in micro-dollars (0 when unknown or not billed). */
  costMicros: number;
}

/** Spend and remaining budget of a key. */
export interface KeyUsage {
  key: string;
  day: {
    period: string;
    spentMicros: number;
    reservedMicros: number;
    limitMicros?: number;
    remainingMicros?: number;
  };
  month: {
    period: string;
    spentMicros: number;
    reservedMicros: number;
    limitMicros?: number;
    remainingMicros?: number;
  };
}

/** What to do when the shared store fails or is slower than `state_timeout_ms`. */
export type StateFailurePolicy = 'open' | 'closed';

/** A state-store failure, as told to the metric hook. */
export interface StateFailureEvent {
  /** The operation that failed (`admit`, `settle`, `usage`, `availability`, `get`, `set`, …). */
  operation: string;
  error: Error;
  /**
   * What happened to the request: served from local state (`open`) or refused, a 503 (`closed`, or
   * a stored-reply lookup Redis could not answer with none held here, under either policy).
   */
  outcome: 'local' | 'refused';
}

/** The shared state of a gateway. Every method may reject with a `StateUnavailableError` (policy `closed`). */
export interface StateStore {
  /** The circuit-breaker store the router uses (pass it to `createSwitchyard({ stateStore })`). */
  readonly availability: AvailabilityStore;
  /** Checks the budget and takes from the rate limits in one atomic step. */
  admit(request: AdmitRequest): Promise<Admission>;
  /** Reconciles a reservation with the billed usage and records the spend. */
  settle(reservation: Reservation, used: Settlement): Promise<void>;
  /** Spend and remaining budget of `key`. */
  usage(key: string, budget?: KeyBudget): Promise<KeyUsage>;
  /**
   * Stores a value (a stored Response) for `ttlSeconds`, within its group's bound (see
   * {@link ValueGroupOptions}): rejects with a `RangeError` for a value over it on its own.
   */
  set(name: string, value: string, ttlSeconds: number, options?: SetOptions): Promise<void>;
  /**
   * A stored value, or `undefined`. `hold`, when given, is told the size (bytes) of a value a remote
   * store must fetch before fetching it, and may throw to refuse it: then the value is never read
   * (`max_request_bytes_in_flight`: concurrent requests naming one 16 MB stored conversation are
   * refused by its size, not after each has pulled it in). A small value (up to
   * {@link smallValueBytes}) comes with its size in one round trip and is told after. The memory
   * store, which fetches nothing, does not call it. `options.shared`: the value must be read from the
   * shared store (see {@link SetOptions}).
   */
  get(name: string, hold?: (bytes: number) => void, options?: SetOptions): Promise<string | undefined>;
  /**
   * True while the store refuses what needs its shared state (policy `closed` and the shared store
   * not reachable: not connected, its last operation failed, or a command timed out in the last
   * second); `/readyz` then answers 503. A store
   * that never refuses (in memory, or `open`) leaves it undefined or false.
   */
  readonly refusing?: boolean;
  /** Releases connections and timers. */
  close(): Promise<void>;
  /** Settles once a remote store is connected (or gave up waiting); serve after it. */
  readonly ready?: Promise<void>;
}

/** Options of {@link StateStore.set} and {@link StateStore.get}. */
export interface SetOptions {
  /**
   * The value must reach the shared store (a deleted reply's mark), or be read from it (the reply
   * a DELETE looks for): no local fallback whatever `on_state_failure` says — a failure rejects
   * with a `StateUnavailableError` (503). A value kept only in this instance's memory would not
   * hide the old one from the other instances, and its later write to Redis (NX) loses to the
   * value it was meant to replace; a read of this instance's memory alone finds no reply the
   * others still serve, and a DELETE would answer 404 for it.
   */
  shared?: boolean;
  /**
   * For `get`: the answer must be the shared store's. A value this instance holds (stored during an
   * outage) is read as before, but a read that could not reach the shared store and finds none here
   * rejects with a `StateUnavailableError` (503, retryable) whatever `on_state_failure` says,
   * rather than answering none: a stored reply the other instances serve is no 404.
   */
  authoritative?: boolean;
}

/** Stored values up to this many bytes are read with their size in one round trip (`StateStore.get`). */
export const smallValueBytes = 64 * 1024;

/**
 * The most bytes one group's stored values (a gateway key's: `state_max_bytes_per_key`) may hold
 * in a state store unless it is told otherwise: 128 MiB, four times the gateway's default body limit.
 */
export const defaultMaxValueBytesPerGroup = 128 * 1024 * 1024;

/** Options of a state store's stored values: their groups, and each group's bound. */
export interface ValueGroupOptions {
  /**
   * The group of a stored value's name (the gateway key it belongs to). Default: one group for
   * every value.
   */
  valueGroupOf?: (name: string) => string;
  /**
   * The most bytes one group's values may hold (UTF-8, as Redis counts them); past it, the group
   * gives up its own oldest values first (the soonest to expire), never another group's, and a
   * value over it on its own is not stored (`set` rejects). 0: no bound. Default
   * {@link defaultMaxValueBytesPerGroup}.
   */
  maxValueBytesPerGroup?: number;
}

/**
 * The error of a value that is not stored: it is over its group's bound on its own, or (`runs`) that
 * many runs of the store script did not give up enough of its group's values to make its room.
 */
export function overGroupBound(bytes: number, bound: number, runs = 0): RangeError {
  return new RangeError(
    runs > 0
      ? `a stored value (${bytes} bytes) found no room in its key's bound (${bound} bytes): ${runs} runs of giving up the key's oldest values did not make enough`
      : `a stored value (${bytes} bytes) is over its key's bound on its own (${bound} bytes)`,
  );
}

/** Micro-dollars (integers) from US dollars. */
export function toMicros(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/** The UTC day (`YYYYMMDD`) and month (`YYYYMM`) of `now`. */
export function periodsOf(now: number): { day: string; month: string } {
  const iso = new Date(now).toISOString();
  const month = iso.slice(0, 4) + iso.slice(5, 7);
  return { day: month + iso.slice(8, 10), month };
}
