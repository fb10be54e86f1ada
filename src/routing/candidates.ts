/** Pre-dispatch checks: which candidates can take a request, and why the others are skipped. */
import {
  contextOverflowFactor,
  contextWindowOf,
  overflowEstimate,
  sendsClientBetas,
} from '../core/capability-check.ts';
import { type CapabilityInput, type CapabilityName, capabilityUses } from '../core/capabilities.ts';
import { type CanonicalRequest, wantsReasoning } from '../core/request.ts';
import { ownProviderOptions } from '../providers/common/own-options.ts';
import { withoutMedia } from '../providers/common/preflight.ts';
import { estimateUpperBound } from '../providers/common/token-estimate.ts';
import type { ModelFacts } from '../registry/model-facts.ts';
import type { Registry, ResolvedModel } from '../registry/registry.ts';

/** Per-call facts computed at most once. */
export interface CallNeeds {
  /** Each capability the request needs, with where it is first used (`transcript[1].parts[0]`). */
  required: Map<CapabilityName, string>;
  /**
   * The cheap bound of the input tokens ({@link estimateUpperBound}), computed on first need;
   * `exact` false when the walk stopped past the threshold it was asked about (a lower bound of it).
   */
  upperBound?: { tokens: number; exact: boolean };
  /**
   * The local input-token estimate, computed on first need (only when the bound could overflow);
   * `exact` false when counting stopped past the threshold it was asked about (a lower bound). Of
   * the adapter (`provider`) that counted it: each adapter counts with its own tokenizer, so another
   * candidate's adapter counts again.
   */
  estimate?: { provider: string; tokens: number; exact: boolean };
  /** After a context overflow: only windows larger than this qualify. */
  minContextWindow: number;
}

/** How every skip reason about the context window begins. */
const windowReason = 'context window';

/** How the skip reason of a candidate its adapter cannot serve begins (`Adapter.unservedReason`). */
const unservedReason = 'not served:';

/** Whether a routing attempt's reason says the candidate's adapter cannot serve its model. */
export const isUnservedReason = (reason: string | undefined) =>
  reason?.startsWith(`${unservedReason} `) === true;

/** Whether a routing attempt's reason says the candidate's context window was too small. */
export const isWindowReason = (reason: string | undefined) => reason?.startsWith(`${windowReason} `) === true;

/** The needs of `request`. */
export function callNeeds(request: CapabilityInput): CallNeeds {
  return { required: capabilityUses(request), minContextWindow: 0 };
}

/** Why `model` cannot take the request, or `undefined` when it can (availability aside). */
export function skipReason(
  model: ResolvedModel,
  facts: ModelFacts,
  request: Pick<CanonicalRequest, 'transcript' | 'tools' | 'providerOptions'>,
  needs: CallNeeds,
  registry: Registry,
): string | undefined {
  if (!model.configured) return 'not_configured';
  // An adapter that cannot serve the model as configured (Vertex express mode: Gemini only) would
  // refuse it before any request with a 400, which does not fail over: skipped instead.
  const unserved = registry.adapter(model.provider).unservedReason?.(model.wireName);
  if (unserved !== undefined) return `${unservedReason} ${unserved}`;
  let missing: string[] | undefined;
  // A part is named by its path, which the gateway turns into the client's own field.
  for (const [name, path] of needs.required)
    if (!facts[name])
      (missing ??= []).push(
        path.startsWith('transcript[') && path.includes('.parts[') ? `${name} (${path})` : name,
      );
  if (missing !== undefined) return `lacks ${missing.join(', ')}`;
  // The request's window: a long-context beta flag opens a larger one (`windowOf`).
  const window = windowOf(model, facts, request);
  if (window <= 0) return undefined;
  if (window <= needs.minContextWindow) {
    return `${windowReason} ${window} is not larger than ${needs.minContextWindow}, which overflowed`;
  }
  // The adapter's own rule (core/capability-check.ts `overflowEstimate`, also its pre-flight's): only
  // an estimate far over the window is certain; a closer one is dispatched, and a provider overflow
  // fails over to a larger window. Text only, as the adapter's check: media costs are guesses.
  const textOnly = () => ({ transcript: withoutMedia(request.transcript), tools: request.tools });
  const estimate = overflowEstimate(
    window,
    (stopAbove) => textBound(request, needs, stopAbove),
    (stopAbove) => {
      // A lower bound above this threshold settles it; below, it is counted again this far.
      const known = needs.estimate;
      if (known?.provider === model.provider && (known.exact || known.tokens > stopAbove))
        return known.tokens;
      const tokens = registry
        .adapter(model.provider)
        .estimateInputTokens({ ...textOnly(), model: model.id, stopAbove });
      needs.estimate = { provider: model.provider, tokens, exact: tokens <= stopAbove };
      return tokens;
    },
  );
  if (estimate !== undefined) {
    return `${windowReason} ${window} < estimated ${estimate} input tokens (over ${contextOverflowFactor}×)`;
  }
  return undefined;
}

/** What {@link windowOf} needs of a resolved model: its adapter's name, own provider and type. */
export type WindowModel = Pick<ResolvedModel, 'provider' | 'ownName' | 'type'>;

/**
 * The input window `request` has on `model` ({@link contextWindowOf}), its long-context flags read
 * where the model's adapter reads them: an adapter named otherwise (`work-claude` of type
 * `anthropic`) takes `providerOptions['work-claude']` over `providerOptions.anthropic`
 * (`ownProviderOptions`, the adapter's own rule); a client's own flags only where the adapter's
 * type sends them (`sendsClientBetas`).
 */
export function windowOf(
  model: WindowModel,
  facts: Pick<ModelFacts, 'contextWindow' | 'longContextWindow'>,
  request: Pick<CanonicalRequest, 'providerOptions'>,
): number {
  const options = request.providerOptions;
  const read =
    model.ownName === undefined || options === undefined
      ? request
      : { providerOptions: ownProviderOptions(options, model.provider, model.ownName) };
  return contextWindowOf(facts, read, sendsClientBetas(model.type));
}

/**
 * The cheap bound of a request's text tokens ({@link estimateUpperBound}), asked only whether it is
 * above `stopAbove` (a 32 MiB body is settled by its first megabytes): computed once per call, again
 * only for a higher threshold than one it stopped past.
 */
function textBound(
  request: Pick<CanonicalRequest, 'transcript' | 'tools'>,
  needs: CallNeeds,
  stopAbove: number,
): number {
  const known = needs.upperBound;
  if (known !== undefined && (known.exact || known.tokens > stopAbove)) return known.tokens;
  const tokens = estimateUpperBound({
    transcript: withoutMedia(request.transcript),
    tools: request.tools,
    stopAbove,
  });
  needs.upperBound = { tokens, exact: tokens <= stopAbove };
  return tokens;
}

/** The output limit of a request that sets none, where the model's own is unknown or higher. */
const plainOutputLimit = 4096;

/** The output limit of a reasoning request that sets none: room to think and answer. */
const reasoningOutputLimit = 32_768;

/**
 * The output limit a request that sets none is given for a model whose own is `modelLimit` (0:
 * unknown): 4,096, or 32,768 when it asks for reasoning (a reasoning model cut at 4,096 can spend it
 * all thinking and answer nothing), within the model's limit. Not the model's whole limit: where the
 * limit is sent (Anthropic, Bedrock), providers count it against the caller's rate limits before
 * the call (Anthropic's output tokens per minute, Bedrock's tokens per minute), and OpenAI Chat,
 * OpenAI Responses and Gemini are not sent one at all (`markDefaultOutputLimit`). The gateway's
 * quota reserves the same.
 */
export function defaultOutputTokens(modelLimit: number, reasoning: boolean): number {
  const wanted = reasoning ? reasoningOutputLimit : plainOutputLimit;
  return modelLimit > 0 ? Math.min(wanted, modelLimit) : wanted;
}

const mediaNeeds: readonly CapabilityName[] = ['images', 'audio', 'video', 'pdf'];

/**
 * {@link defaultOutputTokens} for a routed request, lowered to the room the input leaves in the
 * context window when that is less (Anthropic refuses an input plus `max_tokens` over it): the room
 * is read from the cheap bound of the text, which only overstates the input, so the limit never
 * overflows the window because of an estimate; with media (whose costs are guesses) the larger
 * limit is not risked. Never below the plain 4,096, the default before reasoning asked for more.
 * The window is the candidate `model`'s ({@link windowOf}).
 */
export function defaultOutputLimit(
  facts: ModelFacts,
  request: Pick<CanonicalRequest, 'transcript' | 'tools' | 'reasoning' | 'providerOptions'>,
  needs: CallNeeds,
  model: WindowModel,
): number {
  const floor = defaultOutputTokens(facts.maxOutputTokens, false);
  const wanted = defaultOutputTokens(facts.maxOutputTokens, wantsReasoning(request.reasoning));
  const window = windowOf(model, facts, request);
  if (wanted <= floor || window <= 0) return wanted;
  if (mediaNeeds.some((name) => needs.required.has(name))) return floor;
  // A bound past the window leaves no room, however far past it is.
  return Math.max(floor, Math.min(wanted, window - textBound(request, needs, window)));
}

/**
 * The output limit sent to a candidate the router chose for the caller (an alias's target or a
 * fallback: `routedTo`) in place of a `requested` cap above the candidate's own limit (when known,
 * > 0), or `undefined` when the cap is sent as it is. A cap is an upper bound and the model cannot
 * write more than its limit anyway; the caller named another model (an Anthropic client must send
 * `max_tokens`, sized for the model it names), so the candidate's limit is what it meant. A cap
 * above the limit of the model the caller named itself is left to the adapter's refusal
 * (`max_output_tokens_exceeded`), which is what the provider answers, unless the call asks for it
 * to be lowered too (`CallOptions.lowerOutputCap`: the gateway, for a client of another protocol).
 */
export function routedOutputLimit(
  requested: number,
  facts: ModelFacts,
  routedTo: boolean,
): number | undefined {
  const limit = facts.maxOutputTokens;
  return routedTo && limit > 0 && requested > limit ? limit : undefined;
}
