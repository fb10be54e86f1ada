/**
 * The in-memory state store: the single-process default. Every rule of the shared store holds
 * within the process (limits, budgets, one circuit per target, stored Responses); nothing is shared
 * with another process.
 */
import { createMemoryAvailabilityStore } from '../routing/availability.ts';
import { admitNumbers, admitRule, type KeyState, periodUsage, reservationOf, settleRule } from './rules.ts';
import { periodsOf, type KeyBudget, type KeyUsage, type StateStore, toMicros } from './types.ts';

/** Options of {@link createMemoryStateStore}. */
export interface MemoryStateStoreOptions {
  /** The clock (ms since epoch). Default `Date.now`. */
  now?: () => number;
  /** Most stored values kept (the oldest go first). Default 10 000. */
  maxValues?: number;
  /** Most memory the stored values may take (2 bytes per character, V8's most; the oldest go first). Default 256 MiB. */
  maxValueBytes?: number;
  /** How often expired values are dropped while nothing is read or written (ms). Default 30 000. */
  sweepMs?: number;
}

/** A string's memory at most: one byte per Latin-1 character, two otherwise. */
const sizeOf = (text: string) => text.length * 2;

let admissionCounter = 0;

/** Creates the in-memory state store. */
export function createMemoryStateStore(options: MemoryStateStoreOptions = {}): StateStore {
  const now = options.now ?? Date.now;
  const maxValues = options.maxValues ?? 10_000;
  const maxValueBytes = options.maxValueBytes ?? 256 * 1024 * 1024;
  const keys = new Map<string, KeyState>();
  const values = new Map<string, { value: string; expiresAt: number }>();
  let valueBytes = 0;
  const drop = (name: string) => {
    const entry = values.get(name);
    if (entry === undefined) return;
    values.delete(name);
    valueBytes -= sizeOf(entry.value);
  };
  /** Drops expired values from the oldest on (as a gateway writes them, one TTL for all). */
  const sweep = () => {
    const time = now();
    for (const [name, entry] of values) {
      if (entry.expiresAt > time) break;
      drop(name);
    }
  };
  // Bounded in time too, as the gateway's own store: an outage's values go when they expire.
  const timer = setInterval(sweep, options.sweepMs ?? 30_000);
  timer.unref();

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
      drop(name);
      sweep();
      if (sizeOf(value) > maxValueBytes) return;
      values.set(name, { value, expiresAt: now() + ttlSeconds * 1000 });
      valueBytes += sizeOf(value);
      for (const oldest of values.keys()) {
        if (values.size <= maxValues && valueBytes <= maxValueBytes) break;
        drop(oldest);
      }
    },
    async get(name) {
      const entry = values.get(name);
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= now()) {
        drop(name);
        return undefined;
      }
      return entry.value;
    },
    async close() {
      clearInterval(timer);
      values.clear();
      valueBytes = 0;
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
