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
      if (text === undefined) return undefined;
      // A value that is not JSON (written by something else under our name) is no value.
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return undefined;
      }
    },
    put: (id, value, ttlMs) => shared.set(id, JSON.stringify(value), ttlMs / 1000),
  };
}

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /** The most entries kept; the oldest go first. Default 10,000. */
  maxEntries?: number;
  /** The most memory the kept JSON may take (2 bytes per character, V8's most); the oldest go first. Default 256 MiB. */
  maxBytes?: number;
  /** The clock (ms). */
  now?: () => number;
  /** How often expired entries are dropped while nothing is read or written (ms). Default 30,000. */
  sweepMs?: number;
}

/** A string's memory at most: V8 keeps one byte per character for Latin-1 text, two otherwise. */
const sizeOf = (text: string) => text.length * 2;

interface Entry {
  /** The value as JSON: what a caller reads is its own copy, and its size is known. */
  text: string;
  expiresAt: number;
}

/**
 * A bounded in-memory store: entries expire after their TTL (dropped as they are met, and swept
 * by an unref'd timer), and the oldest are evicted past `maxEntries` or `maxBytes`. An entry
 * larger than `maxBytes` on its own is not kept.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): GatewayStore {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const drop = (id: string, entry: Entry) => {
    entries.delete(id);
    bytes -= sizeOf(entry.text);
  };
  /** Drops expired entries from the oldest on (every entry of a gateway has the same TTL). */
  const sweep = () => {
    const time = now();
    for (const [id, entry] of entries) {
      if (entry.expiresAt > time) break;
      drop(id, entry);
    }
  };
  const timer = setInterval(sweep, options.sweepMs ?? 30_000);
  timer.unref();
  return {
    async get(id) {
      const entry = entries.get(id);
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= now()) {
        drop(id, entry);
        return undefined;
      }
      return JSON.parse(entry.text) as unknown;
    },
    async put(id, value, ttlMs) {
      const old = entries.get(id);
      if (old !== undefined) drop(id, old);
      sweep();
      const text = JSON.stringify(value);
      if (sizeOf(text) > maxBytes) return;
      entries.set(id, { text, expiresAt: now() + ttlMs });
      bytes += sizeOf(text);
      for (const [oldest, entry] of entries) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        drop(oldest, entry);
      }
    },
    async close() {
      clearInterval(timer);
      entries.clear();
      bytes = 0;
    },
  };
}
