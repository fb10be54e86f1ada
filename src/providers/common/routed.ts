/**
 * What the router tells an adapter about a request it built for one candidate: the candidate was
 * checked (capabilities and context window, `routing/candidates.ts`) and its model is bound (the
 * wire name the registry resolved), so the adapter neither decides those again nor re-parses the
 * model id. A private symbol, as `markValidated`: nothing outside can forge it.
 */
import type { CanonicalRequest } from '../../core/request.ts';

/** The router's word on a request: its bound model. */
export interface RoutedModel {
  /** The model's name on the wire (the registry's `ResolvedModel.wireName`). */
  wireName: string;
}

const routedMark = Symbol('switchyard.routed');

/** Marks a request the router built after checking its candidate. Only for the router's own objects. */
export function markRouted<Request extends CanonicalRequest>(request: Request, model: RoutedModel): Request {
  (request as unknown as Record<symbol, unknown>)[routedMark] = model;
  return request;
}

/** The bound model of a request the router built, or undefined (a direct adapter call). */
export function routedModel(request: CanonicalRequest): RoutedModel | undefined {
  return (request as unknown as Record<symbol, RoutedModel | undefined>)[routedMark];
}
