/**
 * Values stored in local state during a Redis outage (policy `open`): a Responses conversation
 * stored then resolves only on the instance that stored it — until Redis answers again, when each
 * one still alive is written there (SET … NX, with the time it had left), so every instance can read
 * it. NX: a value another instance wrote under the same name since is newer and stays.
 */

/** Writes one value to Redis for `ttlMs` unless the name is taken; true when it was written. */
export type ShareValue = (name: string, value: string, ttlMs: number) => Promise<boolean>;

/** The names stored locally during an outage, by expiry; written to Redis when it is back. */
export class ValueReplay {
  /** Name → expiry (ms, this instance's clock); oldest first. */
  private readonly waiting = new Map<string, number>();
  private running: Promise<void> | undefined;
  /** Values written to Redis after an outage (not those whose name was taken meanwhile). */
  shared = 0;

  private readonly share: ShareValue;
  private readonly read: (name: string) => Promise<string | undefined>;
  private readonly limit: number;

  /**
   * @param share writes a value to Redis (NX).
   * @param read the value as local state holds it now (gone when it expired or was evicted).
   * @param limit the most names remembered; beyond, the oldest stay local only.
   */
  constructor(share: ShareValue, read: (name: string) => Promise<string | undefined>, limit = 10_000) {
    this.share = share;
    this.read = read;
    this.limit = limit;
  }

  get size(): number {
    return this.waiting.size;
  }

  /** Remembers a value stored locally for `ttlMs`. */
  add(name: string, ttlMs: number): void {
    this.waiting.delete(name);
    this.waiting.set(name, Date.now() + ttlMs);
    if (this.waiting.size > this.limit) this.waiting.delete(this.waiting.keys().next().value!);
  }

  /** Writes every waiting value; stops at the first failure (the next success starts it again). */
  run(): Promise<void> {
    if (this.waiting.size === 0) return Promise.resolve();
    this.running ??= this.drain().finally(() => (this.running = undefined));
    return this.running;
  }

  private async drain(): Promise<void> {
    for (const [name, expiresAt] of [...this.waiting]) {
      const left = expiresAt - Date.now();
      const value = left > 0 ? await this.read(name) : undefined;
      if (value !== undefined) {
        try {
          if (await this.share(name, value, left)) this.shared++;
        } catch {
          return;
        }
      }
      // Stored again locally while this one was being written: that newer one waits its turn.
      if (this.waiting.get(name) === expiresAt) this.waiting.delete(name);
    }
  }
}
