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

const defaultLimitMark = Symbol('switchyard.default-output-limit');

/**
 * Marks a routed request whose `maxOutputTokens` the router chose (the caller set none): the
 * model's own limit, or the room its context window leaves. A protocol where the field is optional
 * (OpenAI Chat and Responses, Gemini) leaves it out, so the provider applies its own default and a
 * limit the catalog has wrong is never sent; Anthropic's, where it is required, sends it.
 */
export function markDefaultOutputLimit<Request extends CanonicalRequest>(request: Request): Request {
  (request as unknown as Record<symbol, unknown>)[defaultLimitMark] = true;
  return request;
}

/** Whether the router chose the request's `maxOutputTokens` (see {@link markDefaultOutputLimit}). */
export function hasDefaultOutputLimit(request: CanonicalRequest): boolean {
  return (request as unknown as Record<symbol, unknown>)[defaultLimitMark] === true;
}
