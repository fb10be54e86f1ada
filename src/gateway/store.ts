/**
 * The gateway's state behind one small interface: stored Responses transcripts
 * (`previous_response_id`) and provider artifacts by tool-call id (signatures a client protocol has
 * no field for) or, for Gemini's text signatures, by the text they sign. In memory by default, bounded in entries and time; a shared store (Redis) plugs in
 * through the same three methods.
 */

import { TtlStrings, type TtlStringsOptions } from '../state/ttl-strings.ts';
import { overGroupBound, type SetOptions, type StateStore } from '../state/types.ts';
import { parseJson } from '../core/json-text.ts';
import type { Logger } from '../core/logger.ts';

/**
 * The most state-store reads (a Redis GET each) one request makes for what its client protocol
 * has no field for — stored call entries (`artifacts.ts`), text signatures (`text-signatures.ts`)
 * — the latest first. A request naming tens of thousands of calls (a long history, or one made up)
 * makes no more reads than this, before its key's limits are checked as after; the calls before
 * them keep what the client sent. Providers take back only the recent turns' artifacts anyway:
 * Anthropic drops earlier turns' thinking, Gemini checks the current turn's signatures, OpenAI
 * drops earlier turns' reasoning items.
 */
export const maxArtifactReads = 256;

/** The state-store reads a request has left ({@link maxArtifactReads} to begin with), shared by its lookups. */
export interface ReadBudget {
  left: number;
}

/** A key-value store with a time to live per entry. Values are JSON-serializable. */
export interface GatewayStore {
  /**
   * The value under `id`, or undefined. `hold`, when given, is told the size in bytes of a value
   * the store must fetch (a shared store's) before fetching it, and may throw to refuse it: the
   * bytes-in-flight bound then refuses a large stored conversation by its size, before it is
   * pulled in. A store whose values are in memory already need not call it. `options.shared`: see
   * {@link SetOptions} (a store in memory ignores it).
   */
  get(id: string, hold?: (bytes: number) => void, options?: SetOptions): Promise<unknown>;
  /** Stores `value` for `ttlMs`; `options.shared`: see {@link SetOptions} (a store in memory ignores it). */
  put(id: string, value: unknown, ttlMs: number, options?: SetOptions): Promise<void>;
  /** Releases connections (optional). */
  close?(): Promise<void>;
}

/**
 * A stored value's JSON, or undefined when it does not parse — not JSON (written by something else
 * under our name), or past the parse's bounds (more escaped keys than it takes) — with a WARN
 * naming the entry: a 404 then, never a 500, but never a silent one.
 */
function parseStored(id: string, text: string, logger: Logger | undefined): unknown {
  try {
    return parseJson(text) as unknown;
  } catch (error) {
    logger?.warn('gateway: a stored value could not be read', {
      entry: id.slice(0, 200),
      chars: text.length,
      error: error instanceof Error ? error.name : 'unknown',
      message: error instanceof Error ? error.message.slice(0, 200) : undefined,
    });
    return undefined;
  }
}

/**
 * Stored Responses and artifacts in the shared state store (Redis), as JSON: a
 * `previous_response_id` then resolves on every instance. A value that does not parse is WARNed
 * to `logger` and read as none.
 */
export function createSharedStore(shared: Pick<StateStore, 'get' | 'set'>, logger?: Logger): GatewayStore {
  return {
    async get(id, hold, options) {
      const text = await shared.get(id, hold, options);
      return text === undefined ? undefined : parseStored(id, text, logger);
    },
    put: (id, value, ttlMs, options) => shared.set(id, JSON.stringify(value), ttlMs / 1000, options),
  };
}

/**
 * Options of {@link createMemoryStore}: its bounds in count, memory and time, and where a value
 * that does not parse back is WARNed.
 */
export type MemoryStoreOptions = TtlStringsOptions & { logger?: Logger };

/**
 * A bounded in-memory store: entries expire after their TTL (dropped as they are met, and swept
 * by an unref'd timer), and the oldest are evicted past `maxEntries` or `maxBytes`; a key past
 * `maxGroupBytes` gives up its own oldest. An entry larger than `maxBytes` on its own is not kept,
 * and one larger than `maxGroupBytes` is refused (`put` rejects: the reply says `store: false`).
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): GatewayStore {
  // Kept as JSON: what a caller reads is its own copy, and its size is known.
  const { logger, ...bounds } = options;
  const entries = new TtlStrings(bounds);
  const maxGroupBytes = bounds.groupOf === undefined ? 0 : (bounds.maxGroupBytes ?? 0);
  return {
    // No `hold`: the value is in memory already, nothing is fetched for it.
    async get(id) {
      const text = entries.get(id);
      // What cannot be read back (a conversation grown past the parse's bounds) is no value, as in
      // the shared store: a 404, never a 500 — and a WARN.
      return text === undefined ? undefined : parseStored(id, text, logger);
    },
    async put(id, value, ttlMs) {
      const text = JSON.stringify(value);
      if (entries.set(id, text, ttlMs) || maxGroupBytes === 0) return;
      // Over its key's bound on its own: the caller says so (the reply's `store: false`).
      const bytes = Buffer.byteLength(text);
      if (bytes > maxGroupBytes) throw overGroupBound(bytes, maxGroupBytes);
    },
    async close() {
      entries.clear();
    },
  };
}
