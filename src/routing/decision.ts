/** The routing decision record every routed response carries (`metadata['switchyard.routing']`). */
import type { ErrorClass } from '../core/errors/error-class.ts';
import type { JsonValue } from '../core/json.ts';
import type { CanonicalResponse } from '../core/request.ts';

/** What happened to one candidate. */
export interface RoutingAttempt {
  /** Canonical id of the candidate. */
  model: string;
  provider: string;
  outcome: 'skipped' | 'failed' | 'served';
  /** Why it was skipped or failed: `not_configured`, `unavailable`, `missing: tools`, `context window …`, `not served: …`, an error message. */
  reason?: string;
  errorClass?: ErrorClass;
  status?: number;
  /**
   * Present when the router lowered the caller's `maxOutputTokens` (`requested`) to this
   * candidate's output limit (`sent`): a model the router chose (an alias's target or a fallback)
   * is sent at most its own limit, never refused for the caller's larger cap.
   */
  maxOutputTokens?: { requested: number; sent: number };
}

/** Who was tried, skipped, failed and why, in order. */
export interface RoutingDecision {
  /** The name the caller asked for. */
  requested: string;
  /** Canonical id of the model that served the call (absent when none did). */
  served?: string;
  attempts: RoutingAttempt[];
}

/** The metadata key of the decision. */
export const routingMetadataKey = 'switchyard.routing';

/** The routing decision of a routed response, if it has one. */
export function routingDecision(response: CanonicalResponse): RoutingDecision | undefined {
  return response.metadata?.[routingMetadataKey] as RoutingDecision | undefined;
}

/** The decision as a JSON value for metadata. */
export function decisionToJson(decision: RoutingDecision): JsonValue {
  return decision as unknown as JsonValue;
}

const decisions = new WeakMap<object, RoutingDecision>();

/** Attaches a decision to an error thrown by the router. */
export function attachDecision(error: unknown, decision: RoutingDecision): void {
  if (typeof error === 'object' && error !== null) decisions.set(error, decision);
}

/** The routing decision behind an error thrown by `stream` / `complete`, if any. */
export function routingDecisionOfError(error: unknown): RoutingDecision | undefined {
  return typeof error === 'object' && error !== null ? decisions.get(error) : undefined;
}
