/**
 * The router: tries a model and its ordered fallbacks, skipping (with a reason) every candidate
 * that is not configured, lacks a needed capability, has too small a context window or is
 * unavailable; fails over on rate limit, overload, server error, network failure and context
 * overflow (to a larger window), never on invalid request or auth; a stream fails over only
 * before its first content event. Every response is priced and carries the routing decision.
 */
import type { CallOptions, RetryGate } from '../core/adapter.ts';
import { AdapterError } from '../core/errors/adapter-error.ts';
import type { ErrorClass } from '../core/errors/error-class.ts';
import { InvalidRequestError } from '../core/errors/invalid-request-error.ts';
import { createRequestId, type RequestId } from '../core/ids.ts';
import { LruCache } from '../core/lru.ts';
import type { Logger } from '../core/logger.ts';
import type { CanonicalRequest, CanonicalResponse } from '../core/request.ts';
import { isValidated, markValidated } from '../core/request-schema.ts';
import { markPrechecked } from '../providers/common/preflight.ts';
import { type Reply, textOf, toolCallsOf } from '../core/reply.ts';
import { createObserverDispatch } from '../observers/dispatch.ts';
import type { CallEvent, Observer } from '../observers/types.ts';
import type { Pricer } from '../pricing/pricer.ts';
import type { ModelFacts } from '../registry/model-facts.ts';
import { notConfigured, type Registry, type ResolvedModel } from '../registry/registry.ts';
import type { Admission, Availability } from './availability.ts';
import { type CallNeeds, callNeeds, skipReason } from './candidates.ts';
import { attachDecision, type RoutingDecision, routingMetadataKey } from './decision.ts';
import { type Candidate, type Probe, RoutedStream, type StreamSteps } from './routed-stream.ts';

/** A request to the front door: a model name instead of an id; `maxOutputTokens` optional. */
export interface RouteRequest extends Omit<CanonicalRequest, 'model' | 'maxOutputTokens'> {
  /** An alias, a canonical `provider:name`, or a bare name served by a glob. */
  model: string;
  /** Default: the model's output limit, at most 4096. */
  maxOutputTokens?: number;
}

/** Post-processes a reply before it is returned (e.g. output-schema validation). */
export type ReplyHook = (reply: Reply, request: RouteRequest) => Reply | Promise<Reply>;

/** What the router needs. */
export interface RouterContext {
  registry: Registry;
  availability: Availability;
  pricer: Pricer;
  observers: readonly Observer[];
  logger: Logger;
}

const failoverClasses: ReadonlySet<ErrorClass> = new Set([
  'rate_limit',
  'server_error',
  'network',
  'context_overflow',
]);
const availabilityClasses: ReadonlySet<ErrorClass> = new Set(['rate_limit', 'server_error', 'network']);
const defaultMaxOutput = 4096;
/** Names whose candidates and facts the router remembers (least recently used forgotten first). */
const maxCachedNames = 1024;

/**
 * With somewhere else to go, errors not worth retrying on the same target: a `retry-after` longer
 * than the adapter will wait (past its cap), or a timeout (a hung target stays hung).
 */
function failsOverAtOnce(error: unknown, delayMs: number): boolean {
  if (!AdapterError.isInstance(error)) return false;
  if (error.retryAfterSeconds !== undefined && error.retryAfterSeconds * 1000 > delayMs) return true;
  return error.errorClass === 'network' && (error.providerCode ?? '').startsWith('timeout_');
}

/** One routing attempt's state shared by `complete` and `stream`. */
interface Route {
  request: RouteRequest;
  requestId: RequestId;
  decision: RoutingDecision;
  candidates: ResolvedModel[];
  needs: CallNeeds;
  index: number;
  options: CallOptions;
}

/** Creates the router over a registry, availability state, pricer and observers. */
export function createRouter(context: RouterContext) {
  const { registry, availability, pricer } = context;
  // LRU-bounded: each distinct name served by a glob or a provider prefix would otherwise stay forever.
  const candidateCache = new LruCache<string, ResolvedModel[]>(maxCachedNames);
  const factsCache = new LruCache<string, ModelFacts>(maxCachedNames);

  function candidatesOf(name: string): ResolvedModel[] {
    let list = candidateCache.get(name);
    if (list === undefined) {
      const primary = registry.resolve(name);
      list = [primary];
      for (const fallback of primary.fallbacks) {
        const model = registry.resolve(fallback);
        if (!list.some((candidate) => candidate.id === model.id)) list.push(model);
      }
      candidateCache.set(name, list);
    }
    return list;
  }

  const keys = new WeakMap<ResolvedModel, { model: string; provider: string }>();

  /** The availability keys of a model (`model:<id>`, `provider:<name>`), built once. */
  function keysOf(model: ResolvedModel): { model: string; provider: string } {
    let entry = keys.get(model);
    if (entry === undefined) {
      entry = { model: `model:${model.id}`, provider: `provider:${model.provider}` };
      keys.set(model, entry);
    }
    return entry;
  }

  function factsOf(model: ResolvedModel): ModelFacts {
    let facts = factsCache.get(model.id);
    if (facts === undefined) {
      facts = registry.facts(model);
      factsCache.set(model.id, facts);
    }
    return facts;
  }

  /** True when someone listens: events are only built then. */
  const observed = context.observers.length > 0;

  /** Observers isolated: a throw or rejection is logged once, never changes the call (observers/dispatch.ts). */
  const emit = createObserverDispatch(
    context.observers,
    (observer: Observer, event: CallEvent) => observer.onEvent(event),
    { logger: context.logger, source: 'switchyard' },
  );

  function startRoute(request: RouteRequest, options: CallOptions): Route {
    const requestId = request.requestId ?? createRequestId();
    const candidates = candidatesOf(request.model);
    const decision: RoutingDecision = { requested: request.model, attempts: [] };
    const needs = callNeeds(request);
    return { request, requestId, decision, candidates, needs, index: 0, options };
  }

  /**
   * The next candidate that passes the pre-dispatch checks, or `undefined` when none is left;
   * synchronous unless the availability store answers asynchronously or the candidate's adapter
   * code is not loaded yet.
   */
  function nextCandidate(route: Route): Candidate | undefined | Promise<Candidate | undefined> {
    while (route.index < route.candidates.length) {
      const model = route.candidates[route.index]!;
      // A provider's adapter code is imported before its first call (provider-type rows load lazily).
      const loading = model.configured ? registry.load(model.provider) : undefined;
      if (loading !== undefined) return loading.then(() => nextCandidate(route));
      route.index++;
      const facts = model.configured ? factsOf(model) : undefined;
      let reason =
        facts === undefined
          ? 'not_configured'
          : skipReason(model, facts, route.request, route.needs, registry);
      if (reason === undefined) {
        const admission = availability.check(keysOf(model).model);
        if (admission instanceof Promise) return admit(route, model, facts!, admission);
        const providerAdmission = admission.allowed ? availability.check(keysOf(model).provider) : admission;
        if (providerAdmission instanceof Promise)
          return admit(route, model, facts!, admission, providerAdmission);
        if (providerAdmission.allowed) return candidateOf(model, facts!, admission, providerAdmission);
        // The model's probe (if it was one) proved nothing: its provider is closed to it.
        if (admission.allowed && admission.probe !== undefined)
          void availability.release(keysOf(model).model, admission.probe);
        reason = `unavailable (${providerAdmission.state})`;
      }
      skip(route, model, reason);
    }
    return undefined;
  }

  /** {@link nextCandidate} once an asynchronous availability store has answered. */
  async function admit(
    route: Route,
    model: ResolvedModel,
    facts: ModelFacts,
    modelCheck: Admission | Promise<Admission>,
    providerCheck?: Promise<Admission>,
  ): Promise<Candidate | undefined> {
    const admission = await modelCheck;
    const providerAdmission = admission.allowed
      ? await (providerCheck ?? availability.check(keysOf(model).provider))
      : admission;
    if (providerAdmission.allowed) return candidateOf(model, facts, admission, providerAdmission);
    if (admission.allowed && admission.probe !== undefined)
      await availability.release(keysOf(model).model, admission.probe);
    skip(route, model, `unavailable (${providerAdmission.state})`);
    return nextCandidate(route);
  }

  /** An admitted candidate, with the half-open probes it carries (its outcome must be reported). */
  function candidateOf(model: ResolvedModel, facts: ModelFacts, ...admissions: Admission[]): Candidate {
    const keys = keysOf(model);
    let probes: Probe[] | undefined;
    admissions.forEach((admission, index) => {
      if (admission.allowed && admission.probe !== undefined)
        (probes ??= []).push({ key: index === 0 ? keys.model : keys.provider, id: admission.probe });
    });
    return probes === undefined ? { model, facts } : { model, facts, probes };
  }

  /** Every failed attempt counted toward the circuit (by the retry gate or at the end), once. */
  const counted = new WeakSet<object>();

  /** Counts an availability failure of `model` (model and provider circuits), once per error. */
  async function countFailure(model: ResolvedModel, error: unknown): Promise<void> {
    if (!AdapterError.isInstance(error) || !availabilityClasses.has(error.errorClass)) return;
    if (counted.has(error)) return;
    counted.add(error);
    await availability.failure(keysOf(model).model, error.retryAfterSeconds);
    await availability.failure(keysOf(model).provider, error.retryAfterSeconds);
  }

  /** True when the model's or its provider's circuit says no call should go now. */
  async function blocked(model: ResolvedModel): Promise<boolean> {
    const keys = keysOf(model);
    return (await availability.blocked(keys.model)) || (await availability.blocked(keys.provider));
  }

  /** Frees the half-open slots of a call that proved nothing (cancelled, a 4xx, another error). */
  async function releaseProbes(candidate: Candidate): Promise<void> {
    for (const probe of candidate.probes ?? []) await availability.release(probe.key, probe.id);
  }

  /**
   * The router's say over the adapter's retries of `candidate`: every failed attempt counts toward
   * the circuit; a probe is one request; with a fallback left, a hint longer than the adapter will
   * wait (`retry-after` past its cap) or a timeout fails over at once instead of retrying; and a
   * retry whose target's circuit opened meanwhile (here or, with a shared store, elsewhere) is not
   * sent — a backoff in progress ends as soon as the circuit opens.
   */
  function retryGate(route: Route, candidate: Candidate): RetryGate {
    const keys = keysOf(candidate.model);
    return {
      allow: async (info) => {
        if (info.stage === 'wait') {
          await countFailure(candidate.model, info.error);
          if (candidate.probes !== undefined) return false;
          if (route.index < route.candidates.length && failsOverAtOnce(info.error, info.delayMs))
            return false;
        }
        return !(await blocked(candidate.model));
      },
      onWake: (wake) =>
        availability.onOpen((key) => {
          if (key === keys.model || key === keys.provider) wake();
        }),
    };
  }

  function skip(route: Route, model: ResolvedModel, reason: string): void {
    route.decision.attempts.push({ model: model.id, provider: model.provider, outcome: 'skipped', reason });
  }

  function canonicalRequest(route: Route, model: ResolvedModel, facts: ModelFacts): CanonicalRequest {
    const maxOutputTokens =
      route.request.maxOutputTokens ?? Math.min(defaultMaxOutput, facts.maxOutputTokens || defaultMaxOutput);
    // The adapter's own name prefixes the wire name (a config name such as `openai-r` may differ from it).
    const adapterName = registry.adapter(model.provider).name;
    const request: CanonicalRequest = {
      ...route.request,
      requestId: route.requestId,
      model: `${adapterName}:${model.wireName}`,
      maxOutputTokens,
    };
    // The candidate's capabilities and context window were checked (`skipReason`): the adapter's
    // pre-flight does not decide them again. Built from a request the front door validated: the
    // adapter boundary need not validate it again.
    markPrechecked(request);
    return isValidated(route.request) ? markValidated(request) : request;
  }

  function callOptions(
    route: Route,
    candidate: Candidate,
    options: CallOptions,
    retries: { count: number },
  ): CallOptions {
    const model = candidate.model;
    return {
      ...options,
      retryGate: retryGate(route, candidate),
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
    };
  }

  function eventBase(route: Route, model: ResolvedModel, retryCount: number) {
    return {
      requestId: route.requestId,
      model: model.id,
      provider: model.provider,
      requested: route.request.model,
      retryCount,
      timestamp: Date.now(),
    };
  }

  /** Records a failure; returns true when routing should go on to the next candidate. */
  async function recordFailure(
    route: Route,
    candidate: Candidate,
    error: unknown,
    startedAt: number,
    retryCount: number,
  ): Promise<boolean> {
    const { model, facts } = candidate;
    const classified = AdapterError.isInstance(error) ? error : undefined;
    const errorClass: ErrorClass = classified?.errorClass ?? 'other';
    if (availabilityClasses.has(errorClass)) await countFailure(model, error);
    else await releaseProbes(candidate);
    if (errorClass === 'context_overflow')
      route.needs.minContextWindow = Math.max(route.needs.minContextWindow, facts.contextWindow);
    const fallback = failoverClasses.has(errorClass) && route.index < route.candidates.length;
    const attempt = {
      model: model.id,
      provider: model.provider,
      outcome: 'failed' as const,
      reason: (error as Error)?.message ?? String(error),
      errorClass,
    };
    route.decision.attempts.push(
      classified?.status === undefined ? attempt : { ...attempt, status: classified.status },
    );
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

  /** Prices the response, attaches the decision, adds `text` / `toolCalls`. */
  async function finalize(route: Route, candidate: Candidate, response: CanonicalResponse): Promise<Reply> {
    const model = candidate.model;
    route.decision.served = model.id;
    route.decision.attempts.push({ model: model.id, provider: model.provider, outcome: 'served' });
    if (response.finishReason === 'cancelled') {
      // A cancelled call says nothing about the target: a probe's slot is freed, nothing closes.
      if (candidate.probes !== undefined) await releaseProbes(candidate);
    } else {
      const modelDone = availability.success(keysOf(model).model);
      const providerDone = availability.success(keysOf(model).provider);
      if (modelDone instanceof Promise) await modelDone;
      if (providerDone instanceof Promise) await providerDone;
    }
    // Priced per model: a multi-model response (advisor, fallback iterations) costs each model's share.
    const usage = pricer.price(response.model, response.usage, model.pricing, model.id);
    const metadata = { ...response.metadata, [routingMetadataKey]: route.decision as never };
    return {
      ...response,
      usage,
      metadata,
      text: textOf(response.content),
      toolCalls: toolCallsOf(response.content),
    };
  }

  function noCandidate(route: Route): Error {
    const attempts = route.decision.attempts;
    const last = [...attempts].reverse().find((attempt) => attempt.outcome === 'failed');
    const reasons = attempts.map((attempt) => `${attempt.model}: ${attempt.reason}`).join('; ');
    const error =
      attempts.length > 0 && attempts.every((attempt) => attempt.reason === 'not_configured')
        ? notConfigured({ name: route.candidates[0]!.provider, missing: undefined })
        : new InvalidRequestError({
            message: `no model can take this request for "${route.request.model}": ${reasons}`,
            providerCode: last === undefined ? 'no_candidate' : 'all_candidates_failed',
          });
    if (error.providerCode === 'not_configured') {
      const slot = registry.providers().find((provider) => provider.name === route.candidates[0]!.provider);
      const detailed = notConfigured({ name: route.candidates[0]!.provider, missing: slot?.missing });
      attachDecision(detailed, route.decision);
      return detailed;
    }
    attachDecision(error, route.decision);
    return error;
  }

  async function complete(
    request: RouteRequest,
    options: CallOptions = {},
    hook?: ReplyHook,
  ): Promise<Reply> {
    const route = startRoute(request, options);
    for (;;) {
      const next = await nextCandidate(route);
      if (next === undefined) throw noCandidate(route);
      const { model, facts } = next;
      const retries = { count: 0 };
      const startedAt = performance.now();
      if (observed) emit({ ...eventBase(route, model, 0), type: 'call-started', stream: false });
      let response: CanonicalResponse;
      try {
        const adapter = registry.adapter(model.provider);
        response = await adapter.complete(
          canonicalRequest(route, model, facts),
          callOptions(route, next, options, retries),
        );
      } catch (error) {
        if (await recordFailure(route, next, error, startedAt, retries.count)) continue;
        attachDecision(error, route.decision);
        throw error;
      }
      let reply = await finalize(route, next, response);
      if (hook !== undefined) {
        try {
          reply = await hook(reply, request);
        } catch (error) {
          // Every call an observer saw start ends for it (an OTel span too): a rejected reply fails.
          rejected(route, model, retries.count, startedAt, error);
          attachDecision(error, route.decision);
          throw error;
        }
      }
      if (observed)
        emit({
          ...eventBase(route, model, retries.count),
          type: 'call-completed',
          response: reply,
          durationMs: performance.now() - startedAt,
        });
      return reply;
    }
  }

  /** A reply its hook rejected (output schema): `call-failed`, no fallback (the provider answered). */
  function rejected(
    route: Route,
    model: ResolvedModel,
    retryCount: number,
    startedAt: number,
    error: unknown,
  ): void {
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

  const steps: StreamSteps<Route> = {
    rejected,
    next: nextCandidate,
    open(route, candidate, retries) {
      const { model, facts } = candidate;
      if (observed) emit({ ...eventBase(route, model, 0), type: 'call-started', stream: true });
      return registry
        .adapter(model.provider)
        .stream(canonicalRequest(route, model, facts), callOptions(route, candidate, route.options, retries));
    },
    failure: (route, candidate, error, startedAt, retryCount) =>
      recordFailure(route, candidate, error, startedAt, retryCount),
    finalize,
    abandoned: releaseProbes,
    noCandidate,
    firstChunk(route, model, retryCount, startedAt) {
      if (observed)
        emit({
          ...eventBase(route, model, retryCount),
          type: 'call-first-chunk',
          latencyMs: performance.now() - startedAt,
        });
    },
    completed(route, model, retryCount, startedAt, reply) {
      if (observed)
        emit({
          ...eventBase(route, model, retryCount),
          type: 'call-completed',
          response: reply,
          durationMs: performance.now() - startedAt,
        });
    },
  };

  /** Streams one routed call: a pass-through iterator over the serving adapter's stream. */
  function stream(request: RouteRequest, options: CallOptions = {}, hook?: ReplyHook): RoutedStream<Route> {
    return new RoutedStream(
      steps,
      () => startRoute(request, options),
      hook === undefined ? undefined : (reply) => hook(reply, request),
    );
  }

  return { complete, stream, candidates: candidatesOf, facts: factsOf };
}

/** The router's interface. */
export type Router = ReturnType<typeof createRouter>;
