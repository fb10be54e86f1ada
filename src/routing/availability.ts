/**
 * The availability state machine (contract §2.2, §9.3): per provider and per model, `closed` →
 * `open` after repeated failures or one long `retry-after` → `half-open` (one probe) after a
 * cooldown → `closed` on the probe's success, `open` again on its failure. State lives behind a
 * small store interface (in memory here; a gateway can keep it in Redis).
 */

/** The three states. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** What the store keeps per key. */
export interface AvailabilityRecord {
  state: CircuitState;
  /** Consecutive failures while closed. */
  failures: number;
  /** When an open circuit lets a probe through (ms since epoch, from the clock). */
  reopenAt?: number;
  /** When the half-open probe was let through. */
  probeAt?: number;
}

/** Where availability state lives. Methods may return promises (a remote store). */
export interface StateStore {
  get(key: string): AvailabilityRecord | undefined | Promise<AvailabilityRecord | undefined>;
  set(key: string, record: AvailabilityRecord): void | Promise<void>;
}

/** An in-process store. */
export function createMemoryStateStore(): StateStore & { readonly records: Map<string, AvailabilityRecord> } {
  const records = new Map<string, AvailabilityRecord>();
  return { records, get: (key) => records.get(key), set: (key, record) => void records.set(key, record) };
}

/** When to open and how long to stay open. */
export interface AvailabilityPolicy {
  /** Consecutive failures that open a closed circuit. Default 3. */
  failureThreshold: number;
  /** How long an open circuit stays open before a probe, ms. Default 30 000. */
  cooldownMs: number;
  /** A `retry-after` at least this long opens the circuit at once (for that long), ms. Default 60 000. */
  longRetryAfterMs: number;
  /** A half-open probe that never reported back frees the slot after this long, ms. Default 60 000. */
  probeTimeoutMs: number;
}

/** The default policy. */
export const defaultAvailabilityPolicy: AvailabilityPolicy = {
  failureThreshold: 3,
  cooldownMs: 30_000,
  longRetryAfterMs: 60_000,
  probeTimeoutMs: 60_000,
};

/** The verdict of `check`. */
export type Admission =
  { allowed: true; probe: boolean } | { allowed: false; state: CircuitState; until?: number };

const closed = (): AvailabilityRecord => ({ state: 'closed', failures: 0 });
const admitted: Admission = { allowed: true, probe: false };

/** The state machine over a store, with an injectable clock. */
export class Availability {
  readonly policy: AvailabilityPolicy;
  private readonly store: StateStore;
  private readonly now: () => number;

  constructor(
    options: { store?: StateStore; policy?: Partial<AvailabilityPolicy>; now?: () => number } = {},
  ) {
    this.store = options.store ?? createMemoryStateStore();
    this.policy = { ...defaultAvailabilityPolicy, ...options.policy };
    this.now = options.now ?? Date.now;
  }

  /** The current state of `key` (closed when never seen). */
  async state(key: string): Promise<CircuitState> {
    return ((await this.store.get(key)) ?? closed()).state;
  }

  /**
   * May a call go to `key`? An open circuit past its cooldown becomes half-open and admits this
   * one call as the probe; further calls are refused until the probe reports.
   */
  check(key: string): Admission | Promise<Admission> {
    const stored = this.store.get(key);
    // Fast path (no promise) for the common case: a synchronous store and a closed circuit.
    if (stored === undefined || (!(stored instanceof Promise) && stored.state === 'closed')) return admitted;
    return this.checkSlow(key, stored);
  }

  private async checkSlow(
    key: string,
    stored: AvailabilityRecord | Promise<AvailabilityRecord | undefined>,
  ): Promise<Admission> {
    const record = stored instanceof Promise ? await stored : stored;
    if (record === undefined || record.state === 'closed') return admitted;
    const now = this.now();
    if (record.state === 'open') {
      if (now < (record.reopenAt ?? 0)) return { allowed: false, state: 'open', until: record.reopenAt };
      await this.store.set(key, { ...record, state: 'half-open', probeAt: now });
      return { allowed: true, probe: true };
    }
    if (now - (record.probeAt ?? 0) >= this.policy.probeTimeoutMs) {
      await this.store.set(key, { ...record, probeAt: now });
      return { allowed: true, probe: true };
    }
    return { allowed: false, state: 'half-open' };
  }

  /** A call to `key` succeeded: the circuit closes. */
  success(key: string): void | Promise<void> {
    const stored = this.store.get(key);
    if (stored === undefined) return;
    if (stored instanceof Promise) {
      return stored.then((record) => {
        if (record !== undefined && (record.state !== 'closed' || record.failures > 0))
          return this.store.set(key, closed());
      });
    }
    if (stored.state === 'closed' && stored.failures === 0) return;
    return this.store.set(key, closed());
  }

  /** A call to `key` failed with an availability failure (rate limit, overload, server, network). */
  async failure(key: string, retryAfterSeconds?: number): Promise<CircuitState> {
    const record = (await this.store.get(key)) ?? closed();
    const now = this.now();
    const retryAfterMs = (retryAfterSeconds ?? 0) * 1000;
    const long = retryAfterMs >= this.policy.longRetryAfterMs;
    const failures = record.failures + 1;
    if (record.state === 'half-open' || long || failures >= this.policy.failureThreshold) {
      const reopenAt = now + Math.max(this.policy.cooldownMs, retryAfterMs);
      await this.store.set(key, { state: 'open', failures, reopenAt });
      return 'open';
    }
    await this.store.set(key, { ...record, failures });
    return record.state;
  }
}
