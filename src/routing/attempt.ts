/** One attempt on a candidate: its adapter request and options, and what its outcome records. */
import type { CallOptions } from '../core/adapter.ts';
import { AdapterError } from '../core/errors/adapter-error.ts';
import { ContextOverflowError } from '../core/errors/context-overflow-error.ts';
import { createAdapterError } from '../core/errors/create-error.ts';
import { type ErrorClass, isRetryableClass } from '../core/errors/error-class.ts';
import { InvalidRequestError } from '../core/errors/invalid-request-error.ts';
import { modelFailureError } from '../core/errors/model-failure.ts';
import { RateLimitError } from '../core/errors/rate-limit-error.ts';
import { ServerError } from '../core/errors/server-error.ts';
import { joinModelId } from '../core/ids.ts';
import type { CanonicalRequest, CanonicalResponse } from '../core/request.ts';
import { isValidated, markValidated } from '../core/request-schema.ts';
import { type Reply, textOf, toolCallsOf } from '../core/reply.ts';
import { markDefaultOutputLimit, markRouted } from '../providers/common/routed.ts';
import type { ModelFacts } from '../registry/model-facts.ts';
import { notConfigured, type ResolvedModel } from '../registry/registry.ts';
import { notAllowedReason } from '../core/adapter.ts';
import {
  defaultOutputLimit,
  isUnservedReason,
  isWindowReason,
  routedOutputLimit,
  windowOf,
} from './candidates.ts';
import { CandidateGate, countFailure, countsAgainstCircuit, releaseProbes } from './circuit.ts';
import type { CircuitCause } from './availability.ts';
import { attachDecision, routingMetadataKey } from './decision.ts';
import { eventBase, failsOver, keysOf, type Route, type RouterState } from './route.ts';
import type { Candidate } from './routed-stream.ts';

export function canonicalRequest(
  state: RouterState,
  route: Route,
  model: ResolvedModel,
  facts: ModelFacts,
): CanonicalRequest {
  const { registry } = state;
  const asked = route.request.maxOutputTokens;
  let maxOutputTokens = asked ?? defaultOutputLimit(facts, route.request, route.needs, model);
  const lowered = loweredOutputLimit(route, model, facts);
  if (lowered !== undefined) {
    state.logger.warn('lowered maxOutputTokens to the output limit of the model routed to', {
      requestId: route.requestId,
      requested: route.request.model,
      model: model.id,
      maxOutputTokens: asked,
      sent: lowered,
    });
    maxOutputTokens = lowered;
  }
  // The adapter's own name prefixes the wire name (a config name such as `openai-r` may differ from it).
  const keys = keysOf(state, model);
  const request: CanonicalRequest = {
    ...route.request,
    requestId: route.requestId,
    model: (keys.requestModel ??= joinModelId(registry.adapter(model.provider).name, model.wireName)),
    maxOutputTokens,
  };
  // The candidate's capabilities and context window were checked (`skipReason`): the adapter's
  // pre-flight does not decide them again. Built from a request the front door validated: the
  // adapter boundary need not validate it again.
  markRouted(request, (keys.routed ??= { wireName: model.wireName }));
  if (route.request.maxOutputTokens === undefined) markDefaultOutputLimit(request);
  route.sent = request;
  return isValidated(route.request) ? markValidated(request) : request;
}

/**
 * The cap sent to `model` when the router lowers the caller's to the model's output limit
 * (`routedOutputLimit`): only for a model the router chose — an alias's target, or a fallback —
 * and for the model the caller named itself only when its options say so (`lowerOutputCap`).
 */
export function loweredOutputLimit(
  route: Route,
  model: ResolvedModel,
  facts: ModelFacts,
): number | undefined {
  const asked = route.request.maxOutputTokens;
  if (asked === undefined) return undefined;
  const routedTo =
    model !== route.candidates[0] || model.matchedBy === 'alias' || route.options.lowerOutputCap === true;
  return routedOutputLimit(asked, facts, routedTo);
}

/** The decision record's note of a lowered cap (`RoutingAttempt.maxOutputTokens`), if any. */
function loweredNote(route: Route, candidate: Candidate) {
  const sent = loweredOutputLimit(route, candidate.model, candidate.facts);
  return sent === undefined ? {} : { maxOutputTokens: { requested: route.request.maxOutputTokens!, sent } };
}

export function callOptions(
  state: RouterState,
  route: Route,
  candidate: Candidate,
  options: CallOptions,
  retries: { count: number },
): CallOptions {
  const { observed, emit } = state;
  const model = candidate.model;
  return (route.sentOptions = {
    ...options,
    retryGate: new CandidateGate(state, route, candidate),
    onRetry: (info) => {
      retries.count = info.attempt;
      options.onRetry?.(info);
      if (observed)
        emit({
          ...eventBase(route, model, retries.count),
          type: 'call-retried',
          errorClass: AdapterError.isInstance(info.error) ? info.error.errorClass : 'other',
          delayMs: info.delayMs,
        });
    },
  });
}

/** Records a failure; returns true when routing should go on to the next candidate. */
export async function recordFailure(
  state: RouterState,
  route: Route,
  candidate: Candidate,
  error: unknown,
  startedAt: number,
  retryCount: number,
): Promise<boolean> {
  const { observed, emit } = state;
  const { model, facts } = candidate;
  const classified = AdapterError.isInstance(error) ? error : undefined;
  const errorClass: ErrorClass = classified?.errorClass ?? 'other';
  // A failure that proves nothing of the provider (a 4xx, a cancel, this process out of file
  // descriptors) frees its probes instead.
  if (countsAgainstCircuit(error)) await countFailure(state, candidate, error);
  else await releaseProbes(state, candidate);
  if (errorClass === 'context_overflow')
    route.needs.minContextWindow = Math.max(
      route.needs.minContextWindow,
      windowOf(model, facts, route.request),
    );
  const fallback = failsOver(errorClass, classified?.status) && route.index < route.candidates.length;
  const attempt = {
    model: model.id,
    provider: model.provider,
    outcome: 'failed' as const,
    reason: (error as Error)?.message ?? String(error),
    errorClass,
    ...loweredNote(route, candidate),
  };
  route.decision.attempts.push(
    classified?.status === undefined ? attempt : { ...attempt, status: classified.status },
  );
  route.lastError = classified;
  if (observed)
    emit({
      ...eventBase(route, model, retryCount),
      type: 'call-failed',
      errorClass,
      error: error instanceof Error ? error : new Error(String(error)),
      durationMs: performance.now() - startedAt,
      fallback,
    });
  return fallback;
}

/**
 * A model failure before anything reached the caller (the call succeeded, its reply is unusable:
 * Gemini `MALFORMED_FUNCTION_CALL`, a finish of `error` without an exception): recorded as a failed
 * attempt — not against the target's circuit, which answered — and true when a fallback is left to
 * try. Without one the reply is served as it is (finish `error`, no exception).
 */
export async function recordModelFailure(
  state: RouterState,
  route: Route,
  candidate: Candidate,
  response: CanonicalResponse,
  startedAt: number,
  retryCount: number,
): Promise<boolean> {
  if (route.index >= route.candidates.length) return false;
  const { observed, emit } = state;
  const { model } = candidate;
  const error = modelFailureError(response);
  await releaseProbes(state, candidate);
  route.lastError = error;
  route.decision.attempts.push({
    model: model.id,
    provider: model.provider,
    outcome: 'failed',
    reason: error.message,
    errorClass: 'server_error',
    ...loweredNote(route, candidate),
  });
  if (observed)
    emit({
      ...eventBase(route, model, retryCount),
      type: 'call-failed',
      errorClass: 'server_error',
      error,
      durationMs: performance.now() - startedAt,
      fallback: true,
    });
  return true;
}

/**
 * Prices the response, attaches the decision, adds `text` / `toolCalls`; records the outcome on the
 * model's and provider's circuits. Synchronous unless the availability store answers asynchronously
 * (then the reply waits for the store's word).
 */
export function finalize(
  state: RouterState,
  route: Route,
  candidate: Candidate,
  response: CanonicalResponse,
): Reply | Promise<Reply> {
  const { availability } = state;
  const model = candidate.model;
  route.decision.served = model.id;
  route.decision.attempts.push({
    model: model.id,
    provider: model.provider,
    outcome: 'served',
    ...loweredNote(route, candidate),
  });
  let recorded: Promise<unknown> | undefined;
  if (response.finishReason === 'cancelled') {
    // A cancelled call says nothing about the target: a probe's slot is freed, nothing closes.
    if (candidate.probes !== undefined) recorded = releaseProbes(state, candidate);
  } else {
    const keys = keysOf(state, model);
    const modelDone = availability.success(keys.model);
    const providerDone = availability.success(keys.provider);
    if (modelDone instanceof Promise || providerDone instanceof Promise)
      recorded = Promise.all([modelDone, providerDone]);
  }
  // Priced per model: a multi-model response (advisor, fallback iterations) costs each model's share.
  const usage = pricedUsage(state, model, response);
  // Assigned, not a computed key after the spread (a runtime call per call, ~1.6k instructions).
  const metadata: NonNullable<CanonicalResponse['metadata']> = { ...response.metadata };
  metadata[routingMetadataKey] = route.decision as never;
  const reply: Reply = {
    ...response,
    usage,
    metadata,
    text: textOf(response.content),
    toolCalls: toolCallsOf(response.content),
  };
  return recorded === undefined ? reply : after(recorded, reply);
}

/** `reply` once the availability store has recorded the outcome. */
async function after(recorded: Promise<unknown>, reply: Reply): Promise<Reply> {
  await recorded;
  return reply;
}

/**
 * The error when no candidate is left: a candidate's last failure, in its own class (a 429 or a
 * 5xx stays one); else, when a circuit kept one out, the refusal of the circuit (`circuitRefusal`),
 * in the class of the failure that opened it; else, when every window was too small, a context
 * overflow; else, when no candidate's adapter serves its model as configured, an
 * `unsupported_model` 400; else every candidate lacked something the request needs (400).
 */
export function noCandidate(state: RouterState, route: Route): Error {
  const { registry, availability } = state;
  const attempts = route.decision.attempts;
  const last = [...attempts].reverse().find((attempt) => attempt.outcome === 'failed');
  // A fallback the caller may not use is not named to it (a key does not learn what it cannot list).
  const reasons = attempts
    .filter((attempt) => attempt.reason !== notAllowedReason)
    .map((attempt) => `${attempt.model}: ${attempt.reason}`)
    .join('; ');
  const message = `no model can take this request for "${route.request.model}": ${reasons}`;
  if (attempts.length > 0 && attempts.every((attempt) => attempt.reason === 'not_configured')) {
    const slot = registry.providers().find((provider) => provider.name === route.candidates[0]!.provider);
    const detailed = notConfigured({ name: route.candidates[0]!.provider, missing: slot?.missing });
    attachDecision(detailed, route.decision);
    return detailed;
  }
  const keptOut = route.keptOut;
  // No wait cures an account out of credit: its circuit's reopening is no time to come back.
  const reopening =
    keptOut?.until === undefined || keptOut.cause === 'out_of_credit'
      ? undefined
      : availability.secondsUntil(keptOut.until);
  let error: Error;
  if (last !== undefined) {
    const failed = route.lastError;
    // The failure's own word (an `insufficient_quota` 429, an upstream's `x-should-retry: false`).
    const retryable = failed?.retryable ?? isRetryableClass(last.errorClass ?? 'other');
    // Its code, words, overload verdict and provider too: the gateway reads them as it reads the
    // failure itself (a timeout's 504, an in-band overload's 529, an account out of credit, an
    // OpenAI upstream's own code), so a fallback kept out
    // changes nothing of the reply. Another candidate's reopening is no wait for a failure that
    // is not to be sent again.
    error = createAdapterError(last.errorClass ?? 'other', {
      message,
      providerCode: failed?.providerCode ?? 'all_candidates_failed',
      ...(failed?.providerMessage === undefined ? {} : { providerMessage: failed.providerMessage }),
      ...(failed?.upstreamCode === undefined ? {} : { upstreamCode: failed.upstreamCode }),
      overloaded: failed?.overloaded === true,
      ...(failed?.provider === undefined ? {} : { provider: failed.provider }),
      status: last.status,
      retryable,
      ...retryAfter(failed?.retryAfterSeconds ?? (retryable ? reopening : undefined)),
      cause: failed,
    });
  } else if (keptOut !== undefined) error = circuitRefusal(message, keptOut.cause, reopening);
  else if (attempts.length > 0 && attempts.every((attempt) => isWindowReason(attempt.reason)))
    // Every window was too small for the input: what the adapter itself would have said.
    error = new ContextOverflowError({ message, providerCode: 'context_window_exceeded' });
  else if (attempts.length > 0 && attempts.every((attempt) => isUnservedReason(attempt.reason)))
    // No adapter serves its model as configured (Vertex express mode): what each would have said.
    error = new InvalidRequestError({ message, providerCode: 'unsupported_model' });
  else error = new InvalidRequestError({ message, providerCode: 'no_candidate' });
  attachDecision(error, route.decision);
  return error;
}

/**
 * The refusal of circuits that kept every candidate out, in the class of the failure that opened
 * the one told of (`Route.keptOut`): an account out of credit, a 429 `insufficient_quota` not to
 * be retried (no wait cures it, and a client sending it again only waits to meet it again); a
 * model's rate limit, a retryable 429 with the seconds until the circuit's probe; a server error,
 * an overload or a network failure, a retryable 503 with those seconds.
 */
function circuitRefusal(
  message: string,
  cause: CircuitCause | undefined,
  reopening: number | undefined,
): Error {
  if (cause === 'out_of_credit')
    return new RateLimitError({ message, providerCode: 'insufficient_quota', status: 429, retryable: false });
  const options = {
    message,
    providerCode: 'all_candidates_unavailable',
    retryable: true,
    ...retryAfter(reopening),
  };
  return cause === 'rate_limit'
    ? new RateLimitError({ ...options, status: 429 })
    : new ServerError({ ...options, status: 503 });
}

const retryAfter = (seconds: number | undefined) =>
  seconds === undefined ? {} : { retryAfterSeconds: seconds };

/** A reply its hook rejected (output schema): `call-failed`, no fallback (the provider answered). */
export function rejected(
  state: RouterState,
  route: Route,
  model: ResolvedModel,
  retryCount: number,
  startedAt: number,
  error: unknown,
): void {
  const { observed, emit } = state;
  if (!observed) return;
  emit({
    ...eventBase(route, model, retryCount),
    type: 'call-failed',
    errorClass: AdapterError.isInstance(error) ? error.errorClass : 'other',
    error: error instanceof Error ? error : new Error(String(error)),
    durationMs: performance.now() - startedAt,
    fallback: false,
  });
}

/**
 * A stream its reader stopped before the reply (`return()`): `call-failed` (`cancelled`, no
 * fallback), with what arrived priced when the adapter reported it — every call an observer saw
 * start ends for it (an OTel span too).
 */
export function stopped(
  state: RouterState,
  route: Route,
  candidate: Candidate,
  retryCount: number,
  startedAt: number,
  error: Error,
  response: CanonicalResponse | undefined,
): void {
  const { observed, emit } = state;
  if (!observed) return;
  const model = candidate.model;
  emit({
    ...eventBase(route, model, retryCount),
    type: 'call-failed',
    errorClass: 'cancelled',
    error,
    durationMs: performance.now() - startedAt,
    fallback: false,
    ...(response === undefined
      ? {}
      : {
          response: {
            ...response,
            usage: pricedUsage(state, model, response),
          },
        }),
  });
}

/**
 * The response's usage priced. An adapter named otherwise (`work-claude`, an Anthropic account)
 * reports its own name in `response.model`; the price table knows the provider's (`anthropic:…`),
 * so its models are priced by that name unless the config or the table prices the adapter's own.
 */
function pricedUsage(state: RouterState, model: ResolvedModel, response: CanonicalResponse) {
  const { pricer } = state;
  const own = model.pricing === undefined ? model.ownName : undefined;
  if (own === undefined || pricer.table.lookup(model.id) !== undefined)
    return pricer.price(response.model, response.usage, model.pricing, model.id);
  const prefix = `${model.provider}:`;
  const served = response.model.startsWith(prefix)
    ? joinModelId(own, response.model.slice(prefix.length))
    : response.model;
  return pricer.price(served, response.usage, undefined, joinModelId(own, model.wireName));
}
