/**
 * One routed call's state (`Route`) and the router's own (`RouterState`: registry, availability,
 * pricer, caches, observers), with the lookups every step makes: candidates, facts, keys.
 */
import type { CallOptions } from '../core/adapter.ts';
import type { ErrorClass } from '../core/errors/error-class.ts';
import type { AdapterError } from '../core/errors/adapter-error.ts';
import { createRequestId, type RequestId } from '../core/ids.ts';
import { LruCache } from '../core/lru.ts';
import type { Logger } from '../core/logger.ts';
import type { CanonicalRequest } from '../core/request.ts';
import type { Reply } from '../core/reply.ts';
import { createObserverDispatch } from '../observers/dispatch.ts';
import type { CallEvent, Observer } from '../observers/types.ts';
import type { Pricer } from '../pricing/pricer.ts';
import type { RoutedModel } from '../providers/common/routed.ts';
import type { ModelFacts } from '../registry/model-facts.ts';
import type { Registry, ResolvedModel } from '../registry/registry.ts';
import type { Availability, CircuitCause } from './availability.ts';
import { type CallNeeds, callNeeds } from './candidates.ts';
import type { RoutingDecision } from './decision.ts';

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

/** Error classes that fail over to the next candidate. */
export const failoverClasses: ReadonlySet<ErrorClass> = new Set([
  'rate_limit',
  'server_error',
  'network',
  'context_overflow',
]);
/**
 * Whether a failure moves routing on to the next candidate: a class of {@link failoverClasses}, or
 * an upstream's answer with a status no class covers (`other` with a status: a 3xx with nothing to
 * follow) — the provider's failure, which the next candidate may not share.
 */
export function failsOver(errorClass: ErrorClass, status: number | undefined): boolean {
  return failoverClasses.has(errorClass) || (errorClass === 'other' && status !== undefined);
}
/** Error classes that count toward a target's circuit. */
export const availabilityClasses: ReadonlySet<ErrorClass> = new Set([
  'rate_limit',
  'server_error',
  'network',
]);
/** Names whose candidates and facts the router remembers (least recently used forgotten first). */
const maxCachedNames = 1024;

/** One routing attempt's state shared by `complete` and `stream`. */
export interface Route {
  request: RouteRequest;
  requestId: RequestId;
  decision: RoutingDecision;
  candidates: ResolvedModel[];
  needs: CallNeeds;
  index: number;
  options: CallOptions;
  /** The reply of a completed (non-streamed) call, kept with it as `RouterState.lastCall`. */
  reply: Reply | undefined;
  /** The adapter request and call options of the latest attempt, kept with the call (`RouterState.lastCall`). */
  sent: CanonicalRequest | undefined;
  sentOptions: CallOptions | undefined;
  /**
   * The circuit refusal told to the caller when circuits kept every candidate out: what opened the
   * circuit and when it lets a probe through (availability clock, ms) — of the candidates kept out,
   * a retryable cause before an account out of credit, then the soonest (`keptOutFirst`).
   */
  keptOut?: { cause?: CircuitCause; until?: number };
  /**
   * The classified error of the latest failed attempt: its code, the provider's words, its
   * `retryable` and `retry-after` pass on when no candidate is left (`noCandidate`).
   */
  lastError?: AdapterError;
}

/** What one router holds across calls. */
export interface RouterState {
  registry: Registry;
  availability: Availability;
  pricer: Pricer;
  /** LRU-bounded: each distinct name served by a glob or a provider prefix would otherwise stay forever. */
  candidateCache: LruCache<string, ResolvedModel[]>;
  factsCache: LruCache<string, ModelFacts>;
  /** The availability keys of each model (and its adapter request's model id), built once. */
  keyCache: WeakMap<ResolvedModel, ModelKeys>;
  /** The router's WARNs (a cap lowered to the output limit of a model routed to). */
  logger: Logger;
  /** True when someone listens: events are only built then. */
  observed: boolean;
  /** Observers isolated: a throw or rejection is logged once, never changes the call (observers/dispatch.ts). */
  emit: (event: CallEvent) => void;
  /** Every failed attempt counted toward the circuit (by the retry gate or at the end), once. */
  counted: WeakSet<object>;
  /**
   * The last call that ended with a reply (its routed stream, or its route and reply), kept until
   * the next one ends. Between two calls nothing else may reference the objects a call makes, and
   * a full GC then (V8's memory reducer runs one when the process idles; the fixed-cost benchmark
   * forces one) frees their hidden classes: every inline cache and optimized function of the call's
   * path that embedded them is reset, and the next call runs in the interpreter and recompiles
   * (`bench/fixed-cost.ts`: most of the front door's cost over the adapter after such a GC). One
   * call's objects (user data included) until the next call ends or `close()`: the request, its
   * turn, the latest attempt's adapter request and call options, the reply, the adapter's ended stream.
   */
  lastCall: object | undefined;
}

/** The router's state over its context. */
export function createRouterState(context: RouterContext): RouterState {
  return {
    registry: context.registry,
    availability: context.availability,
    pricer: context.pricer,
    candidateCache: new LruCache(maxCachedNames),
    factsCache: new LruCache(maxCachedNames),
    keyCache: new WeakMap(),
    logger: context.logger,
    observed: context.observers.length > 0,
    emit: createObserverDispatch(
      context.observers,
      (observer: Observer, event: CallEvent) => observer.onEvent(event),
      { logger: context.logger, source: 'switchyard' },
    ),
    counted: new WeakSet(),
    lastCall: undefined,
  };
}

export function candidatesOf(state: RouterState, name: string): ResolvedModel[] {
  const { registry, candidateCache } = state;
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

/** A model's availability keys, and the model id of its adapter requests (set on the first). */
export interface ModelKeys {
  model: string;
  provider: string;
  /**
   * True when `model` is a provider's shared circuit (`model:<provider>:other`): a model's rate limit
   * does not count toward it, and another failure's `retry-after` does not set how long it opens
   * (`countFailure`).
   */
  shared: boolean;
  /** `<adapter name>:<wire name>` (the adapter's own name may differ from the config's). */
  requestModel?: string;
  /** What the router tells the adapter about the model (`markRouted`), made once. */
  routed?: RoutedModel;
}

/**
 * The availability keys of a model (`model:<id>`, `provider:<name>`), built once. A model the
 * `models` table names (an id or an alias) has a circuit of its own; any other name a glob or its provider
 * prefix lets through shares one with every such name of its provider, `model:<provider>:other`
 * (as the metrics fold them): names a client chooses must not add circuits without bound (each one
 * a field of the shared circuits hash every instance re-reads, and an entry of the memory store).
 * A model's rate limit does not count toward that shared circuit (`countFailure`): one model's
 * rate limit must not shut the provider's other unlisted models.
 */
export function keysOf(state: RouterState, model: ResolvedModel): ModelKeys {
  const { keyCache } = state;
  let entry = keyCache.get(model);
  if (entry === undefined) {
    const named = model.matchedBy === 'exact' || model.matchedBy === 'alias';
    entry = {
      model: named ? `model:${model.id}` : `model:${model.provider}:other`,
      provider: `provider:${model.provider}`,
      shared: !named,
      requestModel: undefined,
      routed: undefined,
    };
    keyCache.set(model, entry);
  }
  return entry;
}

export function factsOf(state: RouterState, model: ResolvedModel): ModelFacts {
  const { registry, factsCache } = state;
  let facts = factsCache.get(model.id);
  if (facts === undefined) {
    facts = registry.facts(model);
    factsCache.set(model.id, facts);
  }
  return facts;
}

export function startRoute(state: RouterState, request: RouteRequest, options: CallOptions): Route {
  const requestId = request.requestId ?? createRequestId();
  const candidates = candidatesOf(state, request.model);
  const decision: RoutingDecision = { requested: request.model, attempts: [] };
  const needs = callNeeds(request);
  return {
    request,
    requestId,
    decision,
    candidates,
    needs,
    index: 0,
    options,
    reply: undefined,
    sent: undefined,
    sentOptions: undefined,
  };
}

/** The fields every call event of `route` on `model` carries. */
export function eventBase(route: Route, model: ResolvedModel, retryCount: number) {
  return {
    requestId: route.requestId,
    model: model.id,
    provider: model.provider,
    requested: route.request.model,
    retryCount,
    timestamp: Date.now(),
  };
}
