/**
 * Strings by name, bounded in count, in memory and in time: the one in-process value store behind
 * the gateway's memory store and the state store's stored values (its own, and Redis's local
 * fallback during an outage).
 */

/** A string's memory at most: V8 keeps one byte per character for Latin-1 text, two otherwise. */
const sizeOf = (text: string) => text.length * 2;

/** Options of {@link TtlStrings}. */
export interface TtlStringsOptions {
  /** The most entries kept; the oldest go first. Default 10,000. */
  maxEntries?: number;
  /** The most memory the kept strings may take (2 bytes per character); the oldest go first. Default 256 MiB. */
  maxBytes?: number;
  /** The clock (ms). Default `Date.now`. */
  now?: () => number;
  /** How often expired entries are dropped while nothing is read or written (ms). Default 30,000. */
  sweepMs?: number;
  /**
   * The group of an entry (a gateway key's scope): when the store is full, a group holding more
   * than half of `maxEntries` or `maxBytes` gives up its own oldest first, so one group cannot
   * evict every other's entries (a lone group still has the whole bounds).
   */
  groupOf?: (name: string) => string;
  /**
   * The most bytes one group's strings may hold (UTF-8, as Redis counts a stored value): past it,
   * the group gives up its own oldest first, never another group's; a string over it on its own is
   * not kept. Needs `groupOf`. Default: none (only `maxEntries` and `maxBytes`).
   */
  maxGroupBytes?: number;
}

/** A group's entries, oldest first, and their memory. */
interface Group {
  names: Set<string>;
  bytes: number;
  /** The UTF-8 bytes of its strings (counted under `maxGroupBytes` only). */
  stored: number;
}

interface Entry {
  text: string;
  expiresAt: number;
  /** Its UTF-8 bytes (counted under `maxGroupBytes` only, else 0). */
  stored: number;
}

/**
 * Entries expire after their TTL: dropped as they are met, from the oldest on at each write, and
 * by a sweep of every entry (unref'd timer, running only while something is kept). The oldest go
 * past `maxEntries` or `maxBytes`; a string larger than `maxBytes` on its own is not kept. A group
 * past `maxGroupBytes` gives up its own oldest, whatever room the store has.
 */
export class TtlStrings {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  readonly #sweepMs: number;
  #bytes = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #groupOf: ((name: string) => string) | undefined;
  readonly #groups = new Map<string, Group>();
  readonly #maxGroupBytes: number;

  constructor(options: TtlStringsOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.#now = options.now ?? Date.now;
    this.#sweepMs = options.sweepMs ?? 30_000;
    this.#groupOf = options.groupOf;
    this.#maxGroupBytes = options.groupOf === undefined ? 0 : (options.maxGroupBytes ?? 0);
  }

  /** The memory the kept strings take (2 bytes per character). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Keeps `text` under `name` for `ttlMs`; false when it is larger than the store takes. */
  set(name: string, text: string, ttlMs: number): boolean {
    this.#drop(name);
    this.#dropExpiredHead();
    if (sizeOf(text) > this.#maxBytes) return false;
    const stored = this.#maxGroupBytes > 0 ? Buffer.byteLength(text) : 0;
    if (stored > this.#maxGroupBytes) return false;
    this.#entries.set(name, { text, expiresAt: this.#now() + ttlMs, stored });
    this.#bytes += sizeOf(text);
    if (this.#groupOf !== undefined) {
      const group = this.#addToGroup(this.#groupOf(name), name, sizeOf(text), stored);
      // Over its own bound: its expired strings go, then its oldest (never this one, within the bound alone).
      if (this.#maxGroupBytes > 0 && group.stored > this.#maxGroupBytes) this.#dropExpired(group);
      while (this.#maxGroupBytes > 0 && group.stored > this.#maxGroupBytes) {
        const oldest = group.names.values().next().value;
        if (oldest === undefined || oldest === name) break;
        this.#drop(oldest);
      }
    }
    while (this.#entries.size > this.#maxEntries || this.#bytes > this.#maxBytes) {
      // Full: a group over half the bounds gives up its own oldest first, else the oldest goes.
      const victim = this.#oldestOfLargeGroup() ?? this.#entries.keys().next().value;
      if (victim === undefined) break;
      this.#drop(victim);
    }
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#sweep(), this.#sweepMs);
      this.#timer.unref();
    }
    return true;
  }

  get(name: string): string | undefined {
    const entry = this.#entries.get(name);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#drop(name);
      return undefined;
    }
    return entry.text;
  }

  clear(): void {
    this.#entries.clear();
    this.#groups.clear();
    this.#bytes = 0;
    this.#stopTimer();
  }

  #addToGroup(key: string, name: string, size: number, stored: number): Group {
    let group = this.#groups.get(key);
    if (group === undefined) this.#groups.set(key, (group = { names: new Set(), bytes: 0, stored: 0 }));
    group.names.add(name);
    group.bytes += size;
    group.stored += stored;
    return group;
  }

  /** The oldest entry of a group holding more than half the bounds (at most one group can), if any. */
  #oldestOfLargeGroup(): string | undefined {
    for (const group of this.#groups.values())
      if (group.names.size > this.#maxEntries / 2 || group.bytes > this.#maxBytes / 2)
        return group.names.values().next().value;
    return undefined;
  }

  #drop(name: string): void {
    const entry = this.#entries.get(name);
    if (entry === undefined) return;
    this.#entries.delete(name);
    this.#bytes -= sizeOf(entry.text);
    if (this.#groupOf === undefined) return;
    const key = this.#groupOf(name);
    const group = this.#groups.get(key);
    if (group === undefined) return;
    group.names.delete(name);
    group.bytes -= sizeOf(entry.text);
    group.stored -= entry.stored;
    if (group.names.size === 0) this.#groups.delete(key);
  }

  /** A group's expired entries, whatever their TTL. */
  #dropExpired(group: Group): void {
    const time = this.#now();
    for (const name of [...group.names])
      if ((this.#entries.get(name)?.expiresAt ?? time) <= time) this.#drop(name);
  }

  /** The oldest entries that expired (cheap at each write; entries of one TTL expire in order). */
  #dropExpiredHead(): void {
    const time = this.#now();
    for (const [name, entry] of this.#entries) {
      if (entry.expiresAt > time) break;
      this.#drop(name);
    }
  }

  /** Every expired entry, whatever its TTL; the timer stops once nothing is kept. */
  #sweep(): void {
    const time = this.#now();
    for (const [name, entry] of this.#entries) if (entry.expiresAt <= time) this.#drop(name);
    if (this.#entries.size === 0) this.#stopTimer();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
