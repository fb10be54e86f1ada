/** Pre-dispatch checks: which candidates can take a request, and why the others are skipped. */
import { contextOverflowFactor, overflowEstimate } from '../core/capability-check.ts';
import { type CapabilityInput, type CapabilityName, capabilityUses } from '../core/capabilities.ts';
import type { CanonicalRequest } from '../core/request.ts';
import { withoutMedia } from '../providers/common/preflight.ts';
import { estimateUpperBound } from '../providers/common/token-estimate.ts';
import type { ModelFacts } from '../registry/model-facts.ts';
import type { Registry, ResolvedModel } from '../registry/registry.ts';

/** Per-call facts computed at most once. */
export interface CallNeeds {
  /** Each capability the request needs, with where it is first used (`transcript[1].parts[0]`). */
  required: Map<CapabilityName, string>;
  /** The cheap bound of the input tokens ({@link estimateUpperBound}), computed on first need. */
  upperBound?: number;
  /**
   * The local input-token estimate, computed on first need (only when the bound could overflow);
   * `exact` false when counting stopped past the threshold it was asked about (a lower bound).
   */
  estimate?: { tokens: number; exact: boolean };
  /** After a context overflow: only windows larger than this qualify. */
  minContextWindow: number;
}

/** How every skip reason about the context window begins. */
const windowReason = 'context window';

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
  request: Pick<CanonicalRequest, 'transcript' | 'tools'>,
  needs: CallNeeds,
  registry: Registry,
): string | undefined {
  if (!model.configured) return 'not_configured';
  let missing: string[] | undefined;
  // A part is named by its path, which the gateway turns into the client's own field.
  for (const [name, path] of needs.required)
    if (!facts[name])
      (missing ??= []).push(
        path.startsWith('transcript[') && path.includes('.parts[') ? `${name} (${path})` : name,
      );
  if (missing !== undefined) return `lacks ${missing.join(', ')}`;
  if (facts.contextWindow <= 0) return undefined;
  if (facts.contextWindow <= needs.minContextWindow) {
    return `${windowReason} ${facts.contextWindow} is not larger than ${needs.minContextWindow}, which overflowed`;
  }
  // The adapter's own rule (core/capability-check.ts `overflowEstimate`, also its pre-flight's): only
  // an estimate far over the window is certain; a closer one is dispatched, and a provider overflow
  // fails over to a larger window. Text only, as the adapter's check: media costs are guesses.
  const textOnly = () => ({ transcript: withoutMedia(request.transcript), tools: request.tools });
  const estimate = overflowEstimate(
    facts.contextWindow,
    () => textBound(request, needs),
    (stopAbove) => {
      // A lower bound above this threshold settles it; below, it is counted again this far.
      const known = needs.estimate;
      if (known !== undefined && (known.exact || known.tokens > stopAbove)) return known.tokens;
      const tokens = registry
        .adapter(model.provider)
        .estimateInputTokens({ ...textOnly(), model: model.id, stopAbove });
      needs.estimate = { tokens, exact: tokens <= stopAbove };
      return tokens;
    },
  );
  if (estimate !== undefined) {
    return `${windowReason} ${facts.contextWindow} < estimated ${estimate} input tokens (over ${contextOverflowFactor}×)`;
  }
  return undefined;
}

/** The cheap bound of a request's text tokens ({@link estimateUpperBound}), computed once per call. */
function textBound(request: Pick<CanonicalRequest, 'transcript' | 'tools'>, needs: CallNeeds): number {
  return (needs.upperBound ??= estimateUpperBound({
    transcript: withoutMedia(request.transcript),
    tools: request.tools,
  }));
}

/** The output limit of a request that sets none, where the model's own is unknown. */
const fallbackOutputLimit = 4096;

const mediaNeeds: readonly CapabilityName[] = ['images', 'audio', 'video', 'pdf'];

/**
 * The output limit of a request that sets none: the model's own, as the provider's default is, so
 * a reasoning model is not cut short by an arbitrary cap — lowered to the room the input leaves in
 * the context window, since Anthropic (and OpenAI for some models) refuse an input plus
 * `max_tokens` over it. The room is read first from the cheap bound of the text (a prose input's
 * bound is about 4 times its tokens); only when that leaves less than the model's limit, or the
 * input holds media, is the input counted by the adapter's estimator, with a tenth more for its
 * error. Never below 4,096 (or the model's limit when lower): an input that leaves less room
 * fails at the provider as it would have.
 */
export function defaultOutputLimit(
  model: ResolvedModel,
  facts: ModelFacts,
  request: Pick<CanonicalRequest, 'transcript' | 'tools'>,
  needs: CallNeeds,
  registry: Registry,
): number {
  const modelLimit = facts.maxOutputTokens > 0 ? facts.maxOutputTokens : fallbackOutputLimit;
  const floor = Math.min(fallbackOutputLimit, modelLimit);
  if (facts.contextWindow <= 0) return modelLimit;
  const hasMedia = mediaNeeds.some((name) => needs.required.has(name));
  if (!hasMedia && facts.contextWindow - textBound(request, needs) >= modelLimit) return modelLimit;
  const input = registry
    .adapter(model.provider)
    .estimateInputTokens({ transcript: request.transcript, tools: request.tools, model: model.id });
  const room = facts.contextWindow - Math.ceil(input * 1.1);
  return Math.max(floor, Math.min(modelLimit, room));
}
