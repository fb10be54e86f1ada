/** Call lifecycle events (contract §9.3) and the observer interface that receives them. */
import type { AdapterError } from '../core/errors/adapter-error.ts';
import type { ErrorClass } from '../core/errors/error-class.ts';
import type { CanonicalResponse } from '../core/request.ts';

interface CallEventBase {
  requestId: string;
  /** Canonical id of the candidate being called. */
  model: string;
  provider: string;
  /** The name the caller asked for. */
  requested: string;
  /** 0 for the first attempt of this candidate, then 1, 2, … per adapter retry. */
  retryCount: number;
  /** Milliseconds since epoch. */
  timestamp: number;
}

/** A candidate is about to be called. */
export interface CallStartedEvent extends CallEventBase {
  type: 'call-started';
  stream: boolean;
}
/** The adapter retries after a transient failure. */
export interface CallRetriedEvent extends CallEventBase {
  type: 'call-retried';
  errorClass: ErrorClass;
  delayMs: number;
}
/** The first event of a stream arrived. */
export interface CallFirstChunkEvent extends CallEventBase {
  type: 'call-first-chunk';
  /** Since `call-started`. */
  latencyMs: number;
}
/** The call finished with a response. */
export interface CallCompletedEvent extends CallEventBase {
  type: 'call-completed';
  response: CanonicalResponse;
  durationMs: number;
}
/**
 * The call failed (after the adapter's own retries); `fallback` tells whether routing goes on. A
 * stream its reader stopped (broke out of `for await`, `return()`) ends so: class `cancelled`, no
 * fallback — what its `result()` rejects with.
 */
export interface CallFailedEvent extends CallEventBase {
  type: 'call-failed';
  errorClass: ErrorClass;
  error: AdapterError | Error;
  durationMs: number;
  fallback: boolean;
  /**
   * What arrived before the end, priced (finish reason `cancelled`): set for a stream stopped by its
   * reader when its adapter reports it (the HTTP adapters do), so its tokens are not lost to telemetry.
   */
  response?: CanonicalResponse;
}

/** Any lifecycle event. */
export type CallEvent =
  CallStartedEvent | CallRetriedEvent | CallFirstChunkEvent | CallCompletedEvent | CallFailedEvent;

/**
 * Receives lifecycle events. An observer may be async; its promise is never awaited. A throw or a
 * rejection is caught and logged once per observer (WARN, redacted) and never changes the call's
 * outcome or timing.
 */
export interface Observer {
  onEvent(event: CallEvent): void;
}
