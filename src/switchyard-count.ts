/**
 * The front door's `countInputTokens()`: the provider's own count of a request's input tokens where
 * its adapter can ask for one, else (and whenever asking fails but for an invalid request) the
 * adapter's local estimate, saying which it is.
 */
import type { Adapter } from './core/adapter.ts';
import { contextOverflowFactor } from './core/capability-check.ts';
import { CancelledError } from './core/errors/cancelled-error.ts';
import { isAdapterError, isInvalidRequestError } from './core/errors/guards.ts';
import { joinModelId } from './core/ids.ts';
import type { Logger } from './core/logger.ts';
import type { CanonicalRequest } from './core/request.ts';
import { markValidated } from './core/request-schema.ts';
import { windowOf } from './routing/candidates.ts';
import type { ModelFacts } from './registry/model-facts.ts';
import type { Registry, ResolvedModel } from './registry/registry.ts';
import { prepareRequest, type SwitchyardRequest } from './switchyard-input.ts';

/** A count of a request's input tokens. */
export interface TokenCount {
  tokens: number;
  /** True when the provider counted them; false for the adapter's local estimate (±10%). */
  exact: boolean;
}

/** Options of `countInputTokens`. */
export interface TokenCountOptions {
  /** Aborts the count: it then rejects (cancelled) rather than answering with the estimate. */
  signal?: AbortSignal;
  /** How long the provider has to answer before the estimate is taken instead (default 5,000 ms). */
  timeoutMs?: number;
}

/** The default of {@link TokenCountOptions.timeoutMs}. */
export const defaultCountTimeoutMs = 5000;

/** What a count needs of the front door. */
export interface CountContext {
  registry: Registry;
  facts(model: ResolvedModel): ModelFacts;
  logger: Logger;
}

/** Why the estimate answers, logged at DEBUG (expected) or WARN (the provider failed to count). */
type Fallback = { level: 'debug' | 'warn'; reason: string; fields?: Record<string, unknown> };

/**
 * Counts `request`'s input tokens for the model it names. A request estimated past 1.5× the
 * model's context window is not sent: the adapter's pre-flight check refuses it before any call, as
 * it refuses such a generation, and its estimate, counted only until past that bound, answers. A
 * provider's 400 (the request itself is invalid) rejects with its classified error; any other
 * failure (429, 5xx, no answer within `timeoutMs`, a local check) answers with the estimate and a
 * WARN or DEBUG line saying why. The caller's abort (`options.signal`) rejects with the
 * `CancelledError` wherever the count is, the upstream's request aborted. A count endpoint that answered 404, 405 or 501 (a compatible host
 * without one) is not asked again for ten minutes: the estimate answers at once, with its WARN.
 */
export async function countInputTokens(
  context: CountContext,
  request: SwitchyardRequest,
  options: TokenCountOptions = {},
): Promise<TokenCount> {
  const prepared = prepareRequest(request, options.signal === undefined ? {} : { signal: options.signal });
  if (!prepared.ok) throw prepared.error;
  const { registry } = context;
  const model = registry.resolve(prepared.request.model);
  await registry.load(model.provider);
  throwIfAborted(options.signal, model);
  const adapter = registry.adapter(model.provider);
  const facts = context.facts(model);
  const { transcript, tools } = prepared.request;
  const estimate = (stopAbove?: number) =>
    adapter.estimateInputTokens({
      transcript,
      model: model.id,
      ...(tools === undefined ? {} : { tools }),
      ...(stopAbove === undefined ? {} : { stopAbove }),
    });
  // Counted only until past 1.5× the window: a tokenizer over a 32 MiB body would hold the event
  // loop for seconds, and past that bound the answer is only "too long".
  const window = windowOf(model, facts, prepared.request);
  const bound = window > 0 ? Math.ceil(window * contextOverflowFactor) : undefined;
  const estimated = (fallback: Fallback): TokenCount => {
    // A caller that gave up is told so, not answered an estimate (a model without a count endpoint).
    throwIfAborted(options.signal, model);
    const fields = { model: model.id, reason: fallback.reason, ...fallback.fields };
    if (fallback.level === 'warn') context.logger.warn('counted input tokens locally', fields);
    else context.logger.debug?.('counted input tokens locally', fields);
    return { tokens: estimate(bound), exact: false };
  };
  if (adapter.countInputTokens === undefined)
    return estimated({ level: 'debug', reason: `adapter ${adapter.name} has no token-count endpoint` });
  const canonical: CanonicalRequest = markValidated({
    ...prepared.request,
    model: joinModelId(adapter.name, model.wireName),
    maxOutputTokens: prepared.request.maxOutputTokens ?? (facts.maxOutputTokens || 4096),
  });
  const outcome = await askProvider(adapter, canonical, options);
  return typeof outcome === 'number' ? { tokens: outcome, exact: true } : estimated(outcome);
}

/** The provider's count, or why there is none; rejects for a caller's abort and a provider's 400. */
async function askProvider(
  adapter: Adapter,
  request: CanonicalRequest,
  options: TokenCountOptions,
): Promise<number | Fallback> {
  const timeoutMs = options.timeoutMs ?? defaultCountTimeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted === true) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const tokens = await adapter.countInputTokens!(request, { signal: controller.signal });
    if (tokens !== undefined) return tokens;
    return { level: 'debug', reason: `${adapter.name} has no token-count endpoint for this model` };
  } catch (error) {
    if (options.signal?.aborted === true) throw error;
    if (isInvalidRequestError(error) && error.status === 400) throw error;
    if (controller.signal.aborted)
      return { level: 'warn', reason: `the provider did not answer within ${timeoutMs} ms` };
    if (!isAdapterError(error)) return { level: 'warn', reason: String(error) };
    // A local refusal (the adapter's pre-flight: a capability the model lacks) sent nothing; a
    // reply the provider sent that is no count (`invalid_response`, no status) is the operator's to see.
    const local = error.status === undefined && error.providerCode !== 'invalid_response';
    return {
      level: local ? 'debug' : 'warn',
      reason: error.message,
      fields: { status: error.status, errorClass: error.errorClass },
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** The caller's abort, as a cancelled `complete` rejects: the library's `CancelledError`. */
function throwIfAborted(signal: AbortSignal | undefined, model: ResolvedModel): void {
  if (signal?.aborted === true)
    throw new CancelledError({
      message: `countInputTokens(${model.id}) was cancelled`,
      provider: model.provider,
    });
}
