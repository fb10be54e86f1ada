/** The router's say over a target's circuit: failures counted once, probes released, the retry gate. */
import type { RetryGate } from '../core/adapter.ts';
import { AdapterError } from '../core/errors/adapter-error.ts';
import { isLocalResourceFailure } from '../core/errors/local-resource.ts';
import { isOutOfCredit } from '../core/errors/rate-limit-error.ts';
import type { ResolvedModel } from '../registry/registry.ts';
import type { CircuitCause } from './availability.ts';
import { availabilityClasses, keysOf, type Route, type RouterState } from './route.ts';
import type { Candidate } from './routed-stream.ts';

/**
 * With somewhere else to go, errors not worth retrying on the same target: a `retry-after` longer
 * than the adapter will wait (past its cap), or a timeout (a hung target stays hung).
 */
function failsOverAtOnce(error: unknown, delayMs: number): boolean {
  if (!AdapterError.isInstance(error)) return false;
  if (error.retryAfterSeconds !== undefined && error.retryAfterSeconds * 1000 > delayMs) return true;
  return error.errorClass === 'network' && (error.providerCode ?? '').startsWith('timeout_');
}

/**
 * Whether a failure says something about the provider: a rate limit, a server error, a network
 * failure — but not this process running out of file descriptors (EMFILE), which fails a new
 * connection to any upstream alike and must not open a healthy provider's circuit (with shared
 * state, for every instance) while the gateway is over its own limit.
 */
export function countsAgainstCircuit(error: unknown): error is AdapterError {
  return (
    AdapterError.isInstance(error) &&
    availabilityClasses.has(error.errorClass) &&
    !isLocalResourceFailure(error)
  );
}

/**
 * A rate limit of one model: OpenAI's and Anthropic's limits are per model, so it says nothing of
 * the provider's other models — unless the account itself is out of credit (a 402, OpenAI's
 * `insufficient_quota`, Anthropic's `billing_error`), which refuses every model alike.
 */
function isModelRateLimit(error: AdapterError): boolean {
  return error.errorClass === 'rate_limit' && !isOutOfCredit(error);
}

/** What a circuit this failure opens remembers (see `CircuitCause`): absent for a server-side failure. */
function causeOf(error: AdapterError): CircuitCause | undefined {
  if (error.errorClass !== 'rate_limit') return undefined;
  return isOutOfCredit(error) ? 'out_of_credit' : 'rate_limit';
}

/**
 * Counts an availability failure of `model`, once per error. A rate limit of one model (see
 * {@link isModelRateLimit}) counts toward that model's own circuit only: one tenant's calls
 * exhausting one model's limit must not shut the provider's other models, or the circuit the
 * names a client chooses share (`model:<provider>:other`, see `keysOf`), for every tenant and,
 * with a shared store, every instance. Its `retry-after` opens the model's circuit for that long
 * (at once when it is long). Every other availability failure (a 5xx, an overload, a network
 * failure, an account out of credit) is the provider's too: it counts toward the model's and the
 * provider's circuits, each opening after `failure_threshold` in a row. A circuit it opens
 * remembers what opened it (a rate limit, an account out of credit, else a server-side failure):
 * the router's refusal while it is open keeps that class. `candidate`'s half-open probes are
 * settled here: failed where the failure counts, freed where it does not.
 */
export async function countFailure(state: RouterState, candidate: Candidate, error: unknown): Promise<void> {
  const { availability, counted } = state;
  if (!countsAgainstCircuit(error) || counted.has(error)) return;
  counted.add(error);
  const { model } = candidate;
  const keys = keysOf(state, model);
  if (isModelRateLimit(error)) {
    if (!keys.shared)
      await availability.failure(
        keys.model,
        error.retryAfterSeconds,
        'rate_limit',
        probeOf(candidate, keys.model),
      );
    // It proves nothing of the provider or of the shared circuit: their probes are freed, not failed.
    for (const probe of candidate.probes ?? [])
      if (probe.key !== keys.model || keys.shared) await availability.release(probe.key, probe.id);
    return;
  }
  const cause = causeOf(error);
  const retryAfter = keys.shared ? undefined : error.retryAfterSeconds;
  await availability.failure(keys.model, retryAfter, cause, probeOf(candidate, keys.model));
  await availability.failure(keys.provider, undefined, cause, probeOf(candidate, keys.provider));
}

/** The id of `candidate`'s half-open probe of `key`, if it holds one. */
function probeOf(candidate: Candidate, key: string): string | undefined {
  return candidate.probes?.find((probe) => probe.key === key)?.id;
}

/** True when the model's or its provider's circuit says no call should go now. */
export async function blocked(state: RouterState, model: ResolvedModel): Promise<boolean> {
  const { availability } = state;
  const keys = keysOf(state, model);
  return (await availability.blocked(keys.model)) || (await availability.blocked(keys.provider));
}

/** Frees the half-open slots of a call that proved nothing (cancelled, a 4xx, another error). */
export async function releaseProbes(state: RouterState, candidate: Candidate): Promise<void> {
  const { availability } = state;
  for (const probe of candidate.probes ?? []) await availability.release(probe.key, probe.id);
}

/**
 * The router's say over the adapter's retries of `candidate`: every failed attempt counts toward
 * the circuit; a probe is one request; with a fallback left, a hint longer than the adapter will
 * wait (`retry-after` past its cap) or a timeout fails over at once instead of retrying; and a
 * retry whose target's circuit opened meanwhile (here or, with a shared store, elsewhere) is not
 * sent — a backoff in progress ends as soon as the circuit opens. One object per call (its methods
 * on the prototype, not closures): the adapter calls them as methods.
 */
export class CandidateGate implements RetryGate {
  private readonly state: RouterState;
  private readonly route: Route;
  private readonly candidate: Candidate;

  constructor(state: RouterState, route: Route, candidate: Candidate) {
    this.state = state;
    this.route = route;
    this.candidate = candidate;
  }

  async allow(info: Parameters<RetryGate['allow']>[0]): Promise<boolean> {
    const { state, route, candidate } = this;
    if (info.stage === 'wait') {
      await countFailure(state, candidate, info.error);
      if (candidate.probes !== undefined) return false;
      if (route.index < route.candidates.length && failsOverAtOnce(info.error, info.delayMs)) return false;
    }
    return !(await blocked(state, candidate.model));
  }

  onWake(wake: () => void): () => void {
    const keys = keysOf(this.state, this.candidate.model);
    return this.state.availability.onOpen((key) => {
      if (key === keys.model || key === keys.provider) wake();
    });
  }
}
