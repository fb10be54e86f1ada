/** One model call of a turn: streams events through, retries once on the fallback model when overloaded. */
import { invalidInput } from '../core/input-check.ts';
import type { AdapterSession } from '../core/adapter.ts';
import { AdapterError } from '../core/errors/adapter-error.ts';
import type { CanonicalRequest, CanonicalResponse } from '../core/request.ts';
import type { TurnCancellation } from './cancellation.ts';
import type { AgentEvent, ModelChoice, ModelClient } from './types.ts';

/** A resolved model: id and the client that serves it. */
export interface ResolvedModel {
  model: string;
  client: ModelClient;
}

/**
 * True when `error` says the provider is overloaded, after the adapter's own retries gave up: the
 * adapter's own verdict (`AdapterError.overloaded`: Anthropic 529 or `overloaded_error`, in-band
 * too; a message that says the model is overloaded — `sharedErrorRules`, which reads negations and
 * a 4xx's words as no overload), or the provider out of service (503, Gemini `UNAVAILABLE`).
 */
export function isOverloadedError(error: unknown): boolean {
  if (!AdapterError.isInstance(error)) return false;
  // 529 and the code are the adapter's verdict already; kept for an error made by an older copy.
  if (error.overloaded || error.status === 529 || error.status === 503) return true;
  return error.providerCode === 'UNAVAILABLE' || error.providerCode === 'overloaded_error';
}

/** Picks the client of a model choice. */
export function resolveModel(
  choice: ModelChoice,
  client: ModelClient | ((model: string) => ModelClient) | undefined,
): ResolvedModel {
  // A per-turn model function is the caller's code: what it returns is checked like the option.
  const model: unknown = typeof choice === 'string' ? choice : (choice as { model?: unknown } | null)?.model;
  if (typeof model !== 'string' || model.trim() === '') {
    const message = `got ${typeof choice === 'object' ? JSON.stringify(choice) : String(choice)}; expected a model name or { model, client }`;
    throw invalidInput('agent model', [{ path: 'model', message }], 'invalid_options');
  }
  const explicit = typeof choice === 'string' ? undefined : choice.client;
  const chosen = explicit ?? (typeof client === 'function' ? client(model) : client);
  if (chosen === undefined) throw new TypeError(`agent: no client for model ${model}`);
  return { model, client: chosen };
}

/** What one streamed call needs. */
export interface ModelCallContext {
  turn: number;
  cancellation: TurnCancellation;
  session: AdapterSession;
  emit(event: AgentEvent): void;
}

/** Streams one call, forwarding every event; resolves the response (rejects with the classified error). */
export async function streamTurn(
  resolved: ResolvedModel,
  request: CanonicalRequest,
  context: ModelCallContext,
): Promise<CanonicalResponse> {
  const { turn, emit } = context;
  const stream = resolved.client.stream(request, {
    signal: context.cancellation.signal,
    session: context.session,
    onRetry: (info) =>
      emit({ type: 'retry', turn, model: resolved.model, attempt: info.attempt, delayMs: info.delayMs }),
  });
  for await (const event of stream) emit(event);
  return stream.result();
}

/** The outcome of a turn's model call, fallback included. */
export interface TurnCall {
  response: CanonicalResponse;
  model: string;
  fallbackFrom?: string;
}

/**
 * Calls the model; when it fails as overloaded and a fallback is configured (and differs), emits
 * `fallback` and calls the fallback model instead, recording where it came from.
 */
export async function callWithFallback(
  primary: ResolvedModel,
  fallback: ResolvedModel | undefined,
  buildRequest: (model: string, client: ModelClient) => CanonicalRequest,
  context: ModelCallContext,
  shouldFallBack: (error: unknown) => boolean,
): Promise<TurnCall> {
  try {
    const response = await streamTurn(primary, buildRequest(primary.model, primary.client), context);
    const routedFrom = routedFallback(response);
    if (routedFrom !== undefined && response.model !== routedFrom) {
      return { response, model: response.model, fallbackFrom: routedFrom };
    }
    return { response, model: primary.model };
  } catch (error) {
    const usable = fallback !== undefined && fallback.model !== primary.model;
    if (!usable || context.cancellation.isCancelled || !shouldFallBack(error)) throw error;
    context.emit({ type: 'fallback', turn: context.turn, from: primary.model, to: fallback.model, error });
    const response = await streamTurn(fallback, buildRequest(fallback.model, fallback.client), context);
    return { response, model: fallback.model, fallbackFrom: primary.model };
  }
}

/**
 * The model a router (the front door) fell back from, read from the routing decision it records in
 * `metadata['switchyard.routing']`: the first candidate that failed before another one served.
 */
export function routedFallback(response: CanonicalResponse): string | undefined {
  const decision = response.metadata?.['switchyard.routing'];
  if (typeof decision !== 'object' || decision === null || Array.isArray(decision)) return undefined;
  const attempts = (decision as { attempts?: unknown }).attempts;
  if (!Array.isArray(attempts)) return undefined;
  for (const attempt of attempts) {
    const { outcome, model } = (attempt ?? {}) as { outcome?: unknown; model?: unknown };
    if (outcome === 'failed' && typeof model === 'string') return model;
  }
  return undefined;
}

/**
 * A default `maxOutputTokens` for `model`: `fallback`, clamped to the model's known output limit
 * when the client declares capabilities (an adapter does), so a default never trips the adapter's
 * pre-flight limit check; a value the caller sets explicitly is sent as given.
 */
export function defaultMaxOutputTokens(client: ModelClient, model: string, fallback: number): number {
  const capabilities = (client as { capabilities?: unknown }).capabilities;
  if (typeof capabilities !== 'function') return fallback;
  const limit = (capabilities as (model: string) => { maxOutputTokens?: number }).call(
    client,
    model,
  )?.maxOutputTokens;
  return typeof limit === 'number' && limit > 0 ? Math.min(fallback, limit) : fallback;
}
