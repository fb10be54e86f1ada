/**
 * What a state store does when its shared engine fails: one WARN per outage (and a line when it
 * ends), a metric hook on every failure, and the `on_state_failure` policy — `open` serves from
 * local state, `closed` refuses with a `StateUnavailableError` (the gateway answers 503).
 */
import type { Logger } from '../core/logger.ts';
import type { StateFailureEvent, StateFailurePolicy } from './types.ts';

const marker = Symbol.for('switchyard.StateUnavailableError');

/**
 * Redis's `OOM` error reply: it is up, at its `maxmemory`, and refuses writes (`maxmemory-policy
 * noeviction`, or nothing left to evict) until memory is freed.
 */
export function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError' && /^OOM\b/.test(error.message);
}

/**
 * A state operation that needed the shared store failed (the gateway answers 503): Redis could not
 * be reached in time and the policy is `closed` (or the operation has no local fallback), or Redis
 * refused it (`reason` says which).
 */
export class StateUnavailableError extends Error {
  override name = 'StateUnavailableError';
  readonly code = 'state_unavailable';
  readonly [marker] = true;

  constructor(operation: string, options?: { cause?: unknown; reason?: string }) {
    super(
      `the shared state store is unavailable (${operation}): ${options?.reason ?? 'refusing (on_state_failure: closed)'}`,
      { cause: options?.cause },
    );
  }

  /** True for a `StateUnavailableError` from any copy of the package. */
  static isInstance(value: unknown): value is StateUnavailableError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}

/**
 * Tracks one store's outages. An outage begins at a failure and ends at a success that comes
 * `recoveryMs` after the last failure, so a flapping Redis (timeouts under load) is one outage
 * with one WARN, not one per flap.
 */
export class OutageTracker {
  /** True between the first failure and the recovery. */
  failing = false;
  /** The last operation failed (no hysteresis): the store should not trust its shared copy. */
  lastFailed = false;
  /** Failures seen since creation. */
  failures = 0;
  private readonly logger: Logger;
  private readonly policy: StateFailurePolicy;
  private readonly onFailure: ((event: StateFailureEvent) => void) | undefined;
  private readonly recoveryMs: number;
  private readonly onSuccess: (() => void) | undefined;
  private readonly connectionError: (() => string | undefined) | undefined;
  private lastFailureAt = 0;

  constructor(options: {
    logger: Logger;
    policy: StateFailurePolicy;
    onFailure?: (event: StateFailureEvent) => void;
    recoveryMs?: number;
    /** Called after every success (the store replays what failed meanwhile). */
    onSuccess?: () => void;
    /**
     * Why the connection is down, when it knows (its last error, no password in it): told in the
     * WARN, since a command failed on a connection that is not up only says so.
     */
    connectionError?: () => string | undefined;
  }) {
    this.onSuccess = options.onSuccess;
    this.connectionError = options.connectionError;
    this.logger = options.logger;
    this.policy = options.policy;
    this.onFailure = options.onFailure;
    this.recoveryMs = options.recoveryMs ?? 5_000;
  }

  /** Records a failure; returns true when the caller should serve from local state (policy `open`). */
  failed(operation: string, error: unknown, policy: StateFailurePolicy = this.policy): boolean {
    const cause = error instanceof Error ? error : new Error(String(error));
    const outcome = policy === 'open' ? 'local' : 'refused';
    this.failures++;
    this.lastFailed = true;
    this.lastFailureAt = Date.now();
    if (!this.failing) {
      this.failing = true;
      const connection = cause.name === 'ReplyError' ? undefined : this.connectionError?.();
      this.logger.warn(
        isOutOfMemory(cause)
          ? `state store full: Redis refuses writes at its maxmemory (OOM); ${this.meanwhile('it takes them')}`
          : connection !== undefined && /^(NOAUTH|WRONGPASS|NOPERM)\b/.test(connection)
            ? `state store refuses this instance: Redis answers NOAUTH/WRONGPASS (check the password of gateway.state); ${this.meanwhile()}`
            : `state store unreachable: ${this.meanwhile()}`,
        {
          operation,
          error: cause.message,
          ...(connection === undefined ? {} : { connection }),
          policy: this.policy,
        },
      );
    }
    try {
      this.onFailure?.({ operation, error: cause, outcome });
    } catch {
      // A metric hook never changes the request's outcome.
    }
    return outcome === 'local';
  }

  /**
   * Records a failure served by `fallback()` (policy `open`), told as what it did: `local`, or
   * `refused` when it refuses too (a `StateUnavailableError`: a stored-reply lookup with none held
   * here is a 503).
   */
  async servedLocally<Value>(
    operation: string,
    error: unknown,
    fallback: () => Promise<Value>,
  ): Promise<Value> {
    let value: Value;
    try {
      value = await fallback();
    } catch (refusal) {
      this.failed(operation, error, StateUnavailableError.isInstance(refusal) ? 'closed' : 'open');
      throw refusal;
    }
    this.failed(operation, error, 'open');
    return value;
  }

  /** What the instance does until the outage ends, by its policy. */
  private meanwhile(until = 'it is back'): string {
    return this.policy === 'open'
      ? `serving from local state until ${until}`
      : `refusing what needs it (503, on_state_failure: closed) until ${until}`;
  }

  /** A command succeeded: an outage in progress is over. */
  succeeded(): void {
    this.lastFailed = false;
    this.onSuccess?.();
    if (!this.failing || Date.now() - this.lastFailureAt < this.recoveryMs) return;
    this.failing = false;
    this.logger.warn('state store reachable again: sharing state resumes', { failures: this.failures });
  }
}

/**
 * `promise`, or a "Command timed out" rejection after `ms`. Unlike a plain timer (ioredis's
 * `commandTimeout`), the timeout looks once more after the event loop has read its sockets: when the
 * process was busy past `ms` while the reply was already waiting (event-loop lag, not a slow Redis),
 * the reply wins. Timers run before the loop polls for I/O; `setImmediate` runs after it.
 */
export function withTimeout<Value>(promise: Promise<Value>, ms: number): Promise<Value> {
  return new Promise<Value>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          settled = true;
          reject(new Error('Command timed out'));
        }),
      ms,
    );
    promise.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
