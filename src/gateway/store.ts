/**
 * The gateway's state behind one small interface: stored Responses transcripts
 * (`previous_response_id`) and provider artifacts by tool-call id (signatures a client protocol has
 * no field for). In memory by default, bounded in entries and time; a shared store (Redis) plugs in
 * through the same three methods.
 */

import type { StateStore } from '../state/types.ts';

/** A key-value store with a time to live per entry. Values are JSON-serializable. */
export interface GatewayStore {
  get(id: string): Promise<unknown>;
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
    async get(id) {
      const text = await shared.get(id);
      return text === undefined ? undefined : (JSON.parse(text) as unknown);
    },
    put: (id, value, ttlMs) => shared.set(id, JSON.stringify(value), ttlMs / 1000),
  };
}

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /** The most entries kept; the oldest go first. Default 10,000. */
  maxEntries?: number;
  /** The clock (ms). */
  now?: () => number;
}

/** A bounded in-memory store: entries expire after their TTL and the oldest are evicted past `maxEntries`. */
export function createMemoryStore(options: MemoryStoreOptions = {}): GatewayStore {
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: unknown; expiresAt: number }>();
  return {
    async get(id) {
      const entry = entries.get(id);
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(id);
        return undefined;
      }
      return entry.value;
    },
    async put(id, value, ttlMs) {
      entries.delete(id);
      entries.set(id, { value, expiresAt: now() + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
  };
}
