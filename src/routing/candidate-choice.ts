/** Choosing the next candidate: the pre-dispatch checks, then availability (its half-open probes). */
import { notAllowedReason } from '../core/adapter.ts';
import type { ModelFacts } from '../registry/model-facts.ts';
import type { ResolvedModel } from '../registry/registry.ts';
import type { Admission, CircuitCause } from './availability.ts';
import { skipReason } from './candidates.ts';
import { factsOf, keysOf, type Route, type RouterState } from './route.ts';
import type { Candidate, Probe } from './routed-stream.ts';

/**
 * The next candidate that passes the pre-dispatch checks, or `undefined` when none is left;
 * synchronous unless the availability store answers asynchronously or the candidate's adapter
 * code is not loaded yet.
 */
export function nextCandidate(
  state: RouterState,
  route: Route,
): Candidate | undefined | Promise<Candidate | undefined> {
  const { registry, availability } = state;
  while (route.index < route.candidates.length) {
    const model = route.candidates[route.index]!;
    // A provider's adapter code is imported before its first call (provider-type rows load lazily).
    const loading = model.configured ? registry.load(model.provider) : undefined;
    if (loading !== undefined) return loading.then(() => nextCandidate(state, route));
    route.index++;
    const facts = model.configured ? factsOf(state, model) : undefined;
    let reason =
      facts === undefined ? 'not_configured' : skipReason(model, facts, route.request, route.needs, registry);
    // The primary is the caller's own choice; a fallback may be outside what the caller may use.
    if (
      route.index > 1 &&
      route.options.allowFallback?.([model.requested, model.id, ...model.aliases]) === false
    )
      reason = notAllowedReason;
    if (reason === undefined) {
      const admission = availability.check(keysOf(state, model).model);
      if (admission instanceof Promise) return admit(state, route, model, facts!, admission);
      const providerAdmission = admission.allowed
        ? availability.check(keysOf(state, model).provider)
        : admission;
      if (providerAdmission instanceof Promise)
        return admit(state, route, model, facts!, admission, providerAdmission);
      if (providerAdmission.allowed) return candidateOf(state, model, facts!, admission, providerAdmission);
      // The model's probe (if it was one) proved nothing: its provider is closed to it.
      if (admission.allowed && admission.probe !== undefined)
        void availability.release(keysOf(state, model).model, admission.probe);
      reason = unavailable(route, providerAdmission);
    }
    skip(state, route, model, reason);
  }
  return undefined;
}

/** {@link nextCandidate} once an asynchronous availability store has answered. */
export async function admit(
  state: RouterState,
  route: Route,
  model: ResolvedModel,
  facts: ModelFacts,
  modelCheck: Admission | Promise<Admission>,
  providerCheck?: Promise<Admission>,
): Promise<Candidate | undefined> {
  const { availability } = state;
  const admission = await modelCheck;
  const providerAdmission = admission.allowed
    ? await (providerCheck ?? availability.check(keysOf(state, model).provider))
    : admission;
  if (providerAdmission.allowed) return candidateOf(state, model, facts, admission, providerAdmission);
  if (admission.allowed && admission.probe !== undefined)
    await availability.release(keysOf(state, model).model, admission.probe);
  skip(state, route, model, unavailable(route, providerAdmission));
  return nextCandidate(state, route);
}

/** An admitted candidate, with the half-open probes it carries (its outcome must be reported). */
export function candidateOf(
  state: RouterState,
  model: ResolvedModel,
  facts: ModelFacts,
  modelAdmission: Admission,
  providerAdmission: Admission,
): Candidate {
  const modelProbe = modelAdmission.allowed ? modelAdmission.probe : undefined;
  const providerProbe = providerAdmission.allowed ? providerAdmission.probe : undefined;
  if (modelProbe === undefined && providerProbe === undefined) return { model, facts };
  const keys = keysOf(state, model);
  const probes: Probe[] = [];
  if (modelProbe !== undefined) probes.push({ key: keys.model, id: modelProbe });
  if (providerProbe !== undefined) probes.push({ key: keys.provider, id: providerProbe });
  return { model, facts, probes };
}

/** How the skip reason of a candidate its circuit keeps out begins. */
const unavailableReason = 'unavailable';

/** Whether a routing attempt's reason says a circuit kept the candidate out. */
export const isUnavailableReason = (reason: string | undefined) =>
  reason?.startsWith(`${unavailableReason} (`) === true;

/** What a skip reason says of a circuit's cause (none for a server-side failure). */
const causeNotes: Readonly<Record<CircuitCause, string>> = {
  rate_limit: ': rate limited',
  out_of_credit: ': out of credit',
};

/**
 * The skip reason of a candidate its circuit keeps out (`unavailable (open)`, `unavailable (open:
 * rate limited)`, …); notes the refusal the caller is told of if no candidate is left
 * (`Route.keptOut`).
 */
function unavailable(route: Route, admission: Admission & { allowed: false }): string {
  const refusal = { cause: admission.cause, until: admission.until };
  if (route.keptOut === undefined || keptOutFirst(refusal, route.keptOut)) route.keptOut = refusal;
  const note = admission.cause === undefined ? '' : (causeNotes[admission.cause] ?? '');
  return `${unavailableReason} (${admission.state}${note})`;
}

/**
 * Whether the circuit refusal `a` is the one to tell the caller rather than `b`: one a later call
 * may pass (a rate limit, a server-side failure) before an account out of credit, which no wait
 * cures; between two alike, the one that lets a probe through first (one without a time, a
 * half-open circuit whose probe is in flight, last).
 */
function keptOutFirst(a: NonNullable<Route['keptOut']>, b: NonNullable<Route['keptOut']>): boolean {
  const aRetryable = a.cause !== 'out_of_credit';
  if (aRetryable !== (b.cause !== 'out_of_credit')) return aRetryable;
  return (a.until ?? Infinity) < (b.until ?? Infinity);
}

export function skip(state: RouterState, route: Route, model: ResolvedModel, reason: string): void {
  route.decision.attempts.push({ model: model.id, provider: model.provider, outcome: 'skipped', reason });
}
