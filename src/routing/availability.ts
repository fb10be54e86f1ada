/**
 * The availability state machine (contract §2.2, §9.3): per provider and per model, `closed` →
 * `open` after repeated failures or one long `retry-after` (capped) → `half-open` (one probe) after
 * a cooldown → `closed` on the probe's success, `open` again on its failure, and free for a new
 * probe at once when the probe proves nothing (cancelled, a 4xx). Every transition is one atomic
 * store operation (`transitions.ts`), so a store shared by several processes (Redis) keeps one
 * circuit for all of them and lets exactly one probe through.
 */
import {
  type AvailabilityOperation,
  type AvailabilityPolicy,
  type AvailabilityRecord,
  applyTransition,
  type CircuitCause,
  type CircuitState,
  defaultAvailabilityPolicy,
  type TransitionOutcome,
} from './transitions.ts';

export {
  type AvailabilityOperation,
  type AvailabilityPolicy,
  type AvailabilityRecord,
  applyTransition,
  type CircuitCause,
  type CircuitState,
  defaultAvailabilityPolicy,
  type TransitionOutcome,
} from './transitions.ts';

/**
 * Where availability state lives. `get` is a read (a remote store may answer from a local copy at
 * most about a second old); `transition` applies one operation atomically — never get-then-set —
 * and may return a promise (a remote store).
 */
export interface AvailabilityStore {
  get(key: string): AvailabilityRecord | undefined | Promise<AvailabilityRecord | undefined>;
  transition(key: string, operation: AvailabilityOperation): TransitionOutcome | Promise<TransitionOutcome>;
  /**
   * Tells `listener` when a circuit opens (here or, for a shared store, in another process), so
   * retries waiting on it stop at once. Returns the unsubscribe function.
   */
  onOpen?(listener: (key: string) => void): () => void;
}

/** An in-process store: the single-process default. */
export function createMemoryAvailabilityStore(): AvailabilityStore & {
  readonly records: Map<string, AvailabilityRecord>;
} {
  const records = new Map<string, AvailabilityRecord>();
  const listeners = new Set<(key: string) => void>();
  return {
    records,
    get: (key) => records.get(key),
    transition(key, operation) {
      const before = records.get(key);
      const { record, outcome } = applyTransition(before, operation);
      if (record !== undefined) records.set(key, record);
      if (record?.state === 'open' && before?.state !== 'open')
        for (const listener of listeners) listener(key);
      return outcome;
    },
    onOpen(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/**
 * The verdict of `check`; `probe` is the probe's id when the call was let through as the half-open
 * probe; a refusal says until when (an open circuit) and what opened the circuit (`cause`, absent
 * for a server-side failure).
 */
export type Admission =
  | { allowed: true; probe?: string }
  | { allowed: false; state: CircuitState; until?: number; cause?: CircuitCause };

const admitted: Admission = { allowed: true };

let probeCounter = 0;
const probePrefix = Math.random().toString(36).slice(2, 10);

/** The state machine over a store, with an injectable clock. */
export class Availability {
  readonly policy: AvailabilityPolicy;
  readonly store: AvailabilityStore;
  private readonly now: () => number;

  constructor(
    options: { store?: AvailabilityStore; policy?: Partial<AvailabilityPolicy>; now?: () => number } = {},
  ) {
    this.store = options.store ?? createMemoryAvailabilityStore();
    this.policy = { ...defaultAvailabilityPolicy, ...options.policy };
    this.now = options.now ?? Date.now;
  }

  /** The current state of `key` (closed when never seen). */
  async state(key: string): Promise<CircuitState> {
    return (await this.store.get(key))?.state ?? 'closed';
  }

  /**
   * May a call go to `key`? Read first (synchronous for the memory store): a closed circuit, or an
   * open one still cooling down, needs no transition. Otherwise one atomic `check` transition: an
   * open circuit past its cooldown becomes half-open and admits exactly one call as the probe.
   */
  check(key: string): Admission | Promise<Admission> {
    const stored = this.store.get(key);
    if (stored instanceof Promise) return stored.then((record) => this.decide(key, record));
    return this.decide(key, stored);
  }

  private decide(key: string, record: AvailabilityRecord | undefined): Admission | Promise<Admission> {
    if (record === undefined || record.state === 'closed') return admitted;
    const now = this.now();
    if (record.state === 'open' && now < (record.reopenAt ?? 0))
      return record.cause === undefined
        ? { allowed: false, state: 'open', until: record.reopenAt }
        : { allowed: false, state: 'open', until: record.reopenAt, cause: record.cause };
    const outcome = this.store.transition(key, {
      kind: 'check',
      now,
      probe: `${probePrefix}-${++probeCounter}`,
      probeTimeoutMs: this.policy.probeTimeoutMs,
    });
    return outcome instanceof Promise ? outcome.then(toAdmission) : toAdmission(outcome);
  }

  /** Whole seconds (at least 1) from now until `at` (a circuit's `until`): a `retry-after`. */
  secondsUntil(at: number): number {
    return Math.max(1, Math.ceil((at - this.now()) / 1000));
  }

  /**
   * True when a call to `key` should not go out now (open, or half-open with another probe in
   * flight): a retry waiting on `key` then fails over instead. A read, no transition.
   */
  blocked(key: string): boolean | Promise<boolean> {
    const stored = this.store.get(key);
    return stored instanceof Promise ? stored.then(isBlocking) : isBlocking(stored);
  }

  /** A call to `key` succeeded: the circuit closes. */
  success(key: string): void | Promise<void> {
    const stored = this.store.get(key);
    if (stored instanceof Promise) {
      return stored.then((record) => {
        if (record !== undefined && (record.state !== 'closed' || record.failures > 0))
          return voidOf(this.store.transition(key, { kind: 'success' }));
      });
    }
    if (stored === undefined || (stored.state === 'closed' && stored.failures === 0)) return;
    return voidOf(this.store.transition(key, { kind: 'success' }));
  }

  /**
   * A call to `key` failed with an availability failure (rate limit, overload, server, network);
   * `cause` is what the circuit remembers if this failure opens it; `probe`, the id of the half-open
   * probe of `key` this call was admitted as (only the probe's own failure renames a half-open
   * circuit's cause).
   */
  async failure(
    key: string,
    retryAfterSeconds?: number,
    cause?: CircuitCause,
    probe?: string,
  ): Promise<CircuitState> {
    const retryAfterMs =
      retryAfterSeconds !== undefined && retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : 0;
    const { failureThreshold, cooldownMs, longRetryAfterMs, maxOpenMs } = this.policy;
    const outcome = await this.store.transition(key, {
      kind: 'failure',
      now: this.now(),
      retryAfterMs: Number.isFinite(retryAfterMs) ? retryAfterMs : maxOpenMs,
      failureThreshold,
      cooldownMs,
      longRetryAfterMs,
      maxOpenMs,
      ...(cause === undefined ? {} : { cause }),
      ...(probe === undefined ? {} : { probe }),
    });
    return outcome.state;
  }

  /** The probe `probe` on `key` ended proving nothing (cancelled, not an availability failure): free the slot. */
  release(key: string, probe: string): void | Promise<void> {
    return voidOf(this.store.transition(key, { kind: 'release', now: this.now(), probe }));
  }

  /** Subscribes to circuits opening (see {@link AvailabilityStore.onOpen}); a no-op for stores without it. */
  onOpen(listener: (key: string) => void): () => void {
    return this.store.onOpen?.(listener) ?? (() => {});
  }
}

function toAdmission(outcome: TransitionOutcome): Admission {
  if (outcome.allowed === true)
    return outcome.probe === undefined ? admitted : { allowed: true, probe: outcome.probe };
  const refused: Admission = { allowed: false, state: outcome.state };
  if (outcome.until !== undefined) refused.until = outcome.until;
  if (outcome.cause !== undefined) refused.cause = outcome.cause;
  return refused;
}

function isBlocking(record: AvailabilityRecord | undefined): boolean {
  return record !== undefined && record.state !== 'closed';
}

function voidOf(value: unknown): void | Promise<void> {
  if (value instanceof Promise) return value.then(() => undefined);
}
