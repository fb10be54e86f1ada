/**
 * The gateway's state behind one small interface: stored Responses transcripts
 * (`previous_response_id`) and provider artifacts by tool-call id (signatures a client protocol has
 * no field for). In memory by default, bounded in entries and time; a shared store (Redis) plugs in
 * through the same three methods.
 */

import { TtlStrings, type TtlStringsOptions } from '../state/ttl-strings.ts';
import type { StateStore } from '../state/types.ts';
import { parseJson } from '../core/json-text.ts';

/** A key-value store with a time to live per entry. Values are JSON-serializable. */
export interface GatewayStore {
  /**
   * The value under `id`, or undefined. `hold`, when given, is told the size in bytes of a value
   * the store must fetch (a shared store's) before fetching it, and may throw to refuse it: the
   * bytes-in-flight bound then refuses a large stored conversation by its size, before it is
   * pulled in. A store whose values are in memory already need not call it.
   */
  get(id: string, hold?: (bytes: number) => void): Promise<unknown>;
  put(id: string, value: unknown, ttlMs: number): Promise<void>;
  /** Releases connections (optional). */
  close?(): Promise<void>;
}

/**
 * Stored Responses and artifacts in the shared state store (Redis), as JSON: a
 * `previous_response_id` then resolves on every instance.
 */
export function createSharedStore(shared: Pick<StateStore, 'get' | 'set'>): GatewayStore {
  return {
    async get(id, hold) {
      const text = await shared.get(id, hold);
      if (text === undefined) return undefined;
      // A value that is not JSON (written by something else under our name) is no value.
      try {
        return parseJson(text) as unknown;
      } catch {
        return undefined;
      }
    },
    put: (id, value, ttlMs) => shared.set(id, JSON.stringify(value), ttlMs / 1000),
  };
}

/** Options of {@link createMemoryStore}: its bounds in count, memory and time. */
export type MemoryStoreOptions = TtlStringsOptions;

/**
 * A bounded in-memory store: entries expire after their TTL (dropped as they are met, and swept
 * by an unref'd timer), and the oldest are evicted past `maxEntries` or `maxBytes`. An entry
 * larger than `maxBytes` on its own is not kept.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): GatewayStore {
  // Kept as JSON: what a caller reads is its own copy, and its size is known.
  const entries = new TtlStrings(options);
  return {
    // No `hold`: the value is in memory already, nothing is fetched for it.
    async get(id) {
      const text = entries.get(id);
      if (text === undefined) return undefined;
      // What cannot be read back (a conversation grown past the parse's bounds, e.g. more escaped
      // keys than it takes) is no value, as in the shared store: a 404, never a 500.
      try {
        return parseJson(text) as unknown;
      } catch {
        return undefined;
      }
    },
    async put(id, value, ttlMs) {
      entries.set(id, JSON.stringify(value), ttlMs);
    },
    async close() {
      entries.clear();
    },
  };
}
