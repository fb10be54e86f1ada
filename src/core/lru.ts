/**
 * Bounded memory for per-name state: an LRU cache, and a "warn once per key" set with a cap. Every
 * cache keyed by something a caller chooses (a model name, a glob-served id) uses one of these, so
 * a stream of distinct names cannot grow the heap or flood the log.
 */

/** A Map bounded to `capacity` entries; reading an entry makes it the most recent, the least recent goes first. */
export class LruCache<Key, Value> {
  private readonly entries = new Map<Key, Value>();
  /**
   * The most recent entry (set or read last), whose read changes no order: a cache read on every
   * call with the same key (a model's capabilities, profile, prices) skips the delete and re-insert,
   * which leave a hole in the Map's table each time and make it rehash every few hundred reads.
   */
  private hasNewest = false;
  private newestKey: Key | undefined;
  private newestValue: Value | undefined;
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = Math.max(1, Math.floor(capacity));
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: Key): Value | undefined {
    if (this.hasNewest && this.newestKey === key) return this.newestValue;
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    this.remember(key, value);
    return value;
  }

  set(key: Key, value: Value): void {
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as Key);
    this.entries.set(key, value);
    this.remember(key, value);
  }

  private remember(key: Key, value: Value): void {
    this.hasNewest = true;
    this.newestKey = key;
    this.newestValue = value;
  }

  clear(): void {
    this.entries.clear();
    this.hasNewest = false;
    this.newestKey = undefined;
    this.newestValue = undefined;
  }
}

/**
 * Decides which keys still deserve a warning: each key once, up to `cap` keys; the first key past
 * the cap gets one last `'capped'` answer (say that further ones are not logged), later ones none.
 */
export class WarnOnce {
  private readonly seen = new Set<string>();
  private capped = false;
  readonly cap: number;

  constructor(cap: number) {
    this.cap = cap;
  }

  /** `'warn'` the first time a key is seen (below the cap), `'capped'` once at the cap, else `'skip'`. */
  check(key: string): 'warn' | 'capped' | 'skip' {
    if (this.seen.has(key)) return 'skip';
    if (this.seen.size < this.cap) {
      this.seen.add(key);
      return 'warn';
    }
    if (this.capped) return 'skip';
    this.capped = true;
    return 'capped';
  }
}
