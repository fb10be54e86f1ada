/**
 * The router: tries a model and its ordered fallbacks, skipping (with a reason) every candidate
 * that is not configured, lacks a needed capability, has too small a context window or is
 * unavailable; fails over on rate limit, overload, server error, network failure and context
 * overflow (to a larger window), never on invalid request or auth; a stream fails over only
 * before its first content event. Every response is priced and carries the routing decision.
 */
import type { CallOptions } from '../core/adapter.ts';
import type { CanonicalResponse } from '../core/request.ts';
import { AdapterError } from '../core/errors/adapter-error.ts';
import type { Reply } from '../core/reply.ts';
import {
  callOptions,
  canonicalRequest,
  finalize,
  noCandidate,
  recordFailure,
  recordModelFailure,
  rejected,
  stopped,
} from './attempt.ts';
import { type CarriedUsage, carryUsage, withCarried } from './carried-usage.ts';
import { nextCandidate } from './candidate-choice.ts';
import { releaseProbes } from './circuit.ts';
import { attachDecision } from './decision.ts';
import {
  createRouterState,
  eventBase,
  factsOf,
  candidatesOf,
  type ReplyHook,
  type Route,
  type RouteRequest,
  type RouterContext,
  startRoute,
} from './route.ts';
import { type Candidate, RoutedStream, type StreamSteps } from './routed-stream.ts';

export type { ReplyHook, RouteRequest, RouterContext } from './route.ts';

/**
 * Creates the router over a registry, availability state, pricer and observers. The steps of a
 * call live in their own modules: `route.ts` (state, lookups), `candidate-choice.ts` (checks and
 * availability), `circuit.ts` (failures, probes, the retry gate), `attempt.ts` (the adapter request,
 * recording an outcome, pricing).
 */
export function createRouter(context: RouterContext) {
  const state = createRouterState(context);
  const { registry, observed, emit } = state;

  async function complete(
    request: RouteRequest,
    options: CallOptions = {},
    hook?: ReplyHook,
  ): Promise<Reply> {
    const route = startRoute(state, request, options);
    /** The last model failure that failed over: served as it is when no fallback can take the call. */
    let failed:
      | { candidate: Candidate; response: CanonicalResponse; startedAt: number; carried: CarriedUsage }
      | undefined;
    /** The usage of the model failures failed over from (billed with the reply served). */
    let carried: CarriedUsage;
    for (;;) {
      let chosen = nextCandidate(state, route);
      if (chosen instanceof Promise) chosen = await chosen;
      let next: Candidate;
      let response: CanonicalResponse;
      let startedAt: number;
      const retries = { count: 0 };
      let servingFailed = chosen === undefined;
      if (chosen === undefined) {
        if (failed === undefined) throw noCandidate(state, route);
        ({ candidate: next, response, startedAt } = failed);
        carried = failed.carried;
      } else {
        next = chosen;
        const { model, facts } = next;
        startedAt = performance.now();
        if (observed) emit({ ...eventBase(route, model, 0), type: 'call-started', stream: false });
        try {
          const adapter = registry.adapter(model.provider);
          response = await adapter.complete(
            canonicalRequest(state, route, model, facts),
            callOptions(state, route, next, options, retries),
          );
        } catch (error) {
          if (await recordFailure(state, route, next, error, startedAt, retries.count)) continue;
          // The last fallback failed too: the model failure before it is the call's end (its tokens
          // are billed), unless the caller cancelled.
          if (failed === undefined || isCancelled(error)) {
            attachDecision(error, route.decision);
            throw error;
          }
          ({ candidate: next, response, startedAt } = failed);
          carried = failed.carried;
          servingFailed = true;
        }
        if (
          !servingFailed &&
          response.finishReason === 'error' &&
          (await recordModelFailure(state, route, next, response, startedAt, retries.count))
        ) {
          failed = { candidate: next, response, startedAt, carried };
          carried = carryUsage(carried, next.model.id, response);
          continue;
        }
      }
      const { model } = next;
      let reply = finalize(state, route, next, withCarried(response, carried));
      if (reply instanceof Promise) reply = await reply;
      if (hook !== undefined) {
        try {
          reply = await hook(reply, request);
        } catch (error) {
          // Every call an observer saw start ends for it (an OTel span too): a rejected reply fails —
          // once (a model failure served after all was reported failed already).
          if (!servingFailed) rejected(state, route, model, retries.count, startedAt, error);
          attachDecision(error, route.decision);
          throw error;
        }
      }
      // A model failure served after all (no fallback could take it): observers saw it end (failed).
      if (observed && !servingFailed)
        emit({
          ...eventBase(route, model, retries.count),
          type: 'call-completed',
          response: reply,
          durationMs: performance.now() - startedAt,
        });
      // Kept until the next call ends (see `RouterState.lastCall`).
      route.reply = reply;
      state.lastCall = route;
      return reply;
    }
  }

  const steps: StreamSteps<Route, RouteRequest> = {
    start: (request, options) => startRoute(state, request, options),
    rejected: (route, model, retryCount, startedAt, error) =>
      rejected(state, route, model, retryCount, startedAt, error),
    stopped: (route, candidate, retryCount, startedAt, error, response) =>
      stopped(state, route, candidate, retryCount, startedAt, error, response),
    next: (route) => nextCandidate(state, route),
    open(route, candidate, retries) {
      const { model, facts } = candidate;
      if (observed) emit({ ...eventBase(route, model, 0), type: 'call-started', stream: true });
      return registry
        .adapter(model.provider)
        .stream(
          canonicalRequest(state, route, model, facts),
          callOptions(state, route, candidate, route.options, retries),
        );
    },
    failure: (route, candidate, error, startedAt, retryCount) =>
      recordFailure(state, route, candidate, error, startedAt, retryCount),
    modelFailure: (route, candidate, response, startedAt, retryCount) =>
      recordModelFailure(state, route, candidate, response, startedAt, retryCount),
    finalize: (route, candidate, response) => finalize(state, route, candidate, response),
    abandoned: (candidate) => releaseProbes(state, candidate),
    noCandidate: (route) => noCandidate(state, route),
    firstChunk(route, model, retryCount, startedAt) {
      if (observed)
        emit({
          ...eventBase(route, model, retryCount),
          type: 'call-first-chunk',
          latencyMs: performance.now() - startedAt,
        });
    },
    retain(call) {
      state.lastCall = call;
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
  function stream(
    request: RouteRequest,
    options: CallOptions = {},
    hook?: ReplyHook,
  ): RoutedStream<Route, RouteRequest> {
    return new RoutedStream(steps, request, options, hook);
  }

  return {
    complete,
    stream,
    candidates: (name: string) => candidatesOf(state, name),
    /** Lets go of the last call kept (`RouterState.lastCall`): the front door's `close()`. */
    forget: () => void (state.lastCall = undefined),
    facts: (model: Parameters<typeof factsOf>[1]) => factsOf(state, model),
  };
}

/** The router's interface. */
export type Router = ReturnType<typeof createRouter>;

/** A cancellation (the caller's): never answered with an earlier attempt's reply. */
function isCancelled(error: unknown): boolean {
  return AdapterError.isInstance(error) && (error as AdapterError).errorClass === 'cancelled';
}
