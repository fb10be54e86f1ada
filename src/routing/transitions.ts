/**
 * The availability state machine's transitions as one pure function over a record, so that every
 * store applies the same rules atomically: the memory store calls it directly, a remote store runs
 * the same rules in one server-side step (the Redis store's Lua script mirrors this file; one test
 * suite runs against both).
 */

/** The three states. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * What opened a circuit, where it changes what a refused caller is told: a model's rate limit (a
 * retryable 429 until the probe), an account out of credit (a 429 not to be retried). Absent: a
 * server error, an overload or a network failure (a retryable 503), and every record written
 * before the cause was kept.
 */
export type CircuitCause = 'rate_limit' | 'out_of_credit';

/** What a store keeps per key. */
export interface AvailabilityRecord {
  state: CircuitState;
  /** Consecutive failures while closed. */
  failures: number;
  /** When an open circuit lets a probe through (ms since epoch, from the clock). */
  reopenAt?: number;
  /** When the half-open probe was let through. */
  probeAt?: number;
  /** The id of the half-open probe in flight (only its own report can free the slot early). */
  probe?: string;
  /** What opened the circuit (see {@link CircuitCause}); kept while it is open or half-open. */
  cause?: CircuitCause;
}

/** When to open and how long to stay open. */
export interface AvailabilityPolicy {
  /** Consecutive failures that open a closed circuit. Default 3. */
  failureThreshold: number;
  /**
   * How long an open circuit stays open before a probe, ms, when the failure that opened it gave no
   * `retry-after` (one that did opens it for that long). Default 30 000.
   */
  cooldownMs: number;
  /** A `retry-after` at least this long opens the circuit at once (for that long), ms. Default 60 000. */
  longRetryAfterMs: number;
  /** A half-open probe that never reported back frees the slot after this long, ms. Default 60 000. */
  probeTimeoutMs: number;
  /** The longest a circuit stays open, whatever `retry-after` said, ms. Default 3 600 000 (1 hour). */
  maxOpenMs: number;
}

/** The default policy. */
export const defaultAvailabilityPolicy: AvailabilityPolicy = {
  failureThreshold: 3,
  cooldownMs: 30_000,
  longRetryAfterMs: 60_000,
  probeTimeoutMs: 60_000,
  maxOpenMs: 3_600_000,
};

/** One transition, as data (a remote store ships it to the server as is). */
export type AvailabilityOperation =
  /** May a call go? Open past its cooldown → half-open, admitting this call as the probe `probe`. */
  | { kind: 'check'; now: number; probe: string; probeTimeoutMs: number }
  /**
   * An availability failure (rate limit, overload, server, network); `cause` is kept if it opens the
   * circuit. `probe`: the id of the half-open probe this failure is (absent: an ordinary call).
   */
  | {
      kind: 'failure';
      now: number;
      retryAfterMs: number;
      cause?: CircuitCause;
      probe?: string;
      failureThreshold: number;
      cooldownMs: number;
      longRetryAfterMs: number;
      maxOpenMs: number;
    }
  /** A call succeeded: closed, failures reset. */
  | { kind: 'success' }
  /** The probe `probe` ended proving nothing (cancelled, a 4xx): the slot is free at once. */
  | { kind: 'release'; now: number; probe: string };

/** What a transition answers. */
export interface TransitionOutcome {
  /** The state after the transition. */
  state: CircuitState;
  /** For `check`: whether the call may go. */
  allowed?: boolean;
  /** For `check`: the probe id when the call was admitted as the half-open probe. */
  probe?: string;
  /** For a refused `check` on an open circuit: when it lets a probe through. */
  until?: number;
  /** For a refused `check`: what opened the circuit, when it was not a server-side failure. */
  cause?: CircuitCause;
}

/** The result of {@link applyTransition}: the new record (`undefined`: unchanged) and the outcome. */
export interface Transition {
  record: AvailabilityRecord | undefined;
  outcome: TransitionOutcome;
}

const closedRecord: AvailabilityRecord = { state: 'closed', failures: 0 };

/** Applies `operation` to `current` (`undefined`: never seen, i.e. closed). Pure. */
export function applyTransition(
  current: AvailabilityRecord | undefined,
  operation: AvailabilityOperation,
): Transition {
  const record = current ?? closedRecord;
  switch (operation.kind) {
    case 'check':
      return check(record, operation);
    case 'failure':
      return failure(record, operation);
    case 'success':
      return record.state === 'closed' && record.failures === 0
        ? { record: undefined, outcome: { state: 'closed' } }
        : { record: { state: 'closed', failures: 0 }, outcome: { state: 'closed' } };
    case 'release':
      // Only the probe in flight frees its slot: the circuit is open again, due for a new probe now.
      if (record.state !== 'half-open' || record.probe !== operation.probe)
        return { record: undefined, outcome: { state: record.state } };
      return {
        record: withCause(
          { state: 'open', failures: record.failures, reopenAt: operation.now },
          record.cause,
        ),
        outcome: { state: 'open' },
      };
  }
}

/** `record` with `cause` when there is one (no `cause: undefined` key: the stored JSON stays as small). */
function withCause<T extends AvailabilityRecord | TransitionOutcome>(
  record: T,
  cause: CircuitCause | undefined,
): T {
  if (cause !== undefined) record.cause = cause;
  return record;
}

function check(
  record: AvailabilityRecord,
  operation: Extract<AvailabilityOperation, { kind: 'check' }>,
): Transition {
  const { now, probe } = operation;
  if (record.state === 'closed') return { record: undefined, outcome: { state: 'closed', allowed: true } };
  const due =
    record.state === 'open'
      ? now >= (record.reopenAt ?? 0)
      : now - (record.probeAt ?? 0) >= operation.probeTimeoutMs;
  if (!due) {
    const outcome: TransitionOutcome = { state: record.state, allowed: false };
    if (record.state === 'open') outcome.until = record.reopenAt ?? 0;
    return { record: undefined, outcome: withCause(outcome, record.cause) };
  }
  return {
    record: withCause({ state: 'half-open', failures: record.failures, probeAt: now, probe }, record.cause),
    outcome: { state: 'half-open', allowed: true, probe },
  };
}

function failure(
  record: AvailabilityRecord,
  operation: Extract<AvailabilityOperation, { kind: 'failure' }>,
): Transition {
  const failures = record.failures + 1;
  const long = operation.retryAfterMs >= operation.longRetryAfterMs;
  if (record.state === 'half-open' || long || failures >= operation.failureThreshold) {
    // Open for the failure's own `retry-after` when it has one (the upstream said when to come
    // back: a probe then, not a cooldown past it), else for the cooldown; never past `maxOpenMs`.
    const openMs = Math.min(
      operation.maxOpenMs,
      operation.retryAfterMs > 0 ? operation.retryAfterMs : operation.cooldownMs,
    );
    // The cause is the failure that opened the circuit: one counted while it is already open (a
    // call in flight when it opened) extends it but neither renames nor shortens it (the later of
    // the two reopening times), and while half-open only the probe's own failure names a new
    // cause — a call from before the opening that fails meanwhile reopens it with the old one.
    const renames =
      record.state === 'closed' ||
      (record.state === 'half-open' && operation.probe !== undefined && operation.probe === record.probe);
    const cause = renames ? operation.cause : record.cause;
    let reopenAt = operation.now + openMs;
    if (record.state === 'open') reopenAt = Math.max(reopenAt, record.reopenAt ?? 0);
    return {
      record: withCause({ state: 'open', failures, reopenAt }, cause),
      outcome: { state: 'open' },
    };
  }
  return { record: { ...record, failures }, outcome: { state: record.state } };
}
