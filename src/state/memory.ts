/**
 * The in-memory state store: the single-process default. Every rule of the shared store holds
 * within the process (limits, budgets, one circuit per target, stored Responses); nothing is shared
 * with another process.
 */
import { createMemoryAvailabilityStore } from '../routing/availability.ts';
import { admitNumbers, admitRule, type KeyState, periodUsage, reservationOf, settleRule } from './rules.ts';
import { TtlStrings } from './ttl-strings.ts';
import {
  defaultMaxValueBytesPerGroup,
  type KeyBudget,
  type KeyUsage,
  overGroupBound,
  periodsOf,
  type StateStore,
  toMicros,
  type ValueGroupOptions,
} from './types.ts';

/** Options of {@link createMemoryStateStore}. */
export interface MemoryStateStoreOptions extends ValueGroupOptions {
  /** The clock (ms since epoch). Default `Date.now`. */
  now?: () => number;
  /** Most stored values kept (the oldest go first). Default 10 000. */
  maxValues?: number;
  /** Most memory the stored values may take (2 bytes per character, V8's most; the oldest go first). Default 256 MiB. */
  maxValueBytes?: number;
  /** How often expired values are dropped while nothing is read or written (ms). Default 30 000. */
  sweepMs?: number;
}

let admissionCounter = 0;

/** Creates the in-memory state store. */
export function createMemoryStateStore(options: MemoryStateStoreOptions = {}): StateStore {
  const now = options.now ?? Date.now;
  const maxGroupBytes = options.maxValueBytesPerGroup ?? defaultMaxValueBytesPerGroup;
  const values = new TtlStrings({
    maxEntries: options.maxValues,
    maxBytes: options.maxValueBytes,
    now,
    sweepMs: options.sweepMs,
    groupOf: options.valueGroupOf ?? (() => ''),
    maxGroupBytes,
  });
  const keys = new Map<string, KeyState>();

  function stateOf(key: string): KeyState {
    let state = keys.get(key);
    if (state === undefined) {
      state = { spend: new Map(), inflight: new Map() };
      keys.set(key, state);
    }
    return state;
  }

  return {
    availability: createMemoryAvailabilityStore(),
    async admit(request) {
      const at = now();
      const numbers = admitNumbers(request, at);
      const periods = periodsOf(at);
      const id = `m${++admissionCounter}`;
      const refusal = admitRule(stateOf(request.key), numbers, periods, id);
      if (refusal !== undefined) return refusal;
      return { allowed: true, reservation: reservationOf(request.key, numbers, id, periods) };
    },
    async settle(reservation, used) {
      settleRule(stateOf(reservation.key), reservation, used);
    },
    async usage(key, budget) {
      return usageOf(key, keys.get(key), budget, now());
    },
    async set(name, value, ttlSeconds) {
      if (values.set(name, value, ttlSeconds * 1000)) return;
      const bytes = Buffer.byteLength(value);
      if (maxGroupBytes > 0 && bytes > maxGroupBytes) throw overGroupBound(bytes, maxGroupBytes);
    },
    async get(name) {
      return values.get(name);
    },
    async close() {
      values.clear();
    },
  };
}

/** A key's usage from its state (shared by both stores' fallbacks). */
export function usageOf(
  key: string,
  state: KeyState | undefined,
  budget: KeyBudget | undefined,
  at: number,
): KeyUsage {
  const periods = periodsOf(at);
  const day = periodUsage(state, `d:${periods.day}`, at);
  const month = periodUsage(state, `m:${periods.month}`, at);
  return {
    key,
    day: { period: periods.day, ...day, ...limitOf(budget?.usdPerDay, day.spentMicros) },
    month: { period: periods.month, ...month, ...limitOf(budget?.usdPerMonth, month.spentMicros) },
  };
}

/** The limit and what remains of it (absent without a limit). */
export function limitOf(
  usd: number | undefined,
  spentMicros: number,
): { limitMicros?: number; remainingMicros?: number } {
  if (usd === undefined) return {};
  const limitMicros = toMicros(usd);
  return { limitMicros, remainingMicros: Math.max(0, limitMicros - spentMicros) };
}
