/** Pre-dispatch checks: which candidates can take a request, and why the others are skipped. */
import { contextOverflowFactor } from '../core/capability-check.ts';
import { type CapabilityName, requiredCapabilities } from '../core/capabilities.ts';
import type { CanonicalRequest } from '../core/request.ts';
import { withoutMedia } from '../providers/common/preflight.ts';
import { estimateUpperBound } from '../providers/common/token-estimate.ts';
import type { ModelFacts } from '../registry/model-facts.ts';
import type { Registry, ResolvedModel } from '../registry/registry.ts';

/** Per-call facts computed at most once. */
export interface CallNeeds {
  required: Set<CapabilityName>;
  /** A cheap upper bound of the input tokens (UTF-8 bytes plus framing), computed on first need. */
  upperBound?: number;
  /** The local input-token estimate, computed on first need (only when the bound does not fit). */
  estimate?: number;
  /** After a context overflow: only windows larger than this qualify. */
  minContextWindow: number;
}

/** The needs of `request`. */
export function callNeeds(request: CanonicalRequest): CallNeeds {
  return { required: requiredCapabilities(request), minContextWindow: 0 };
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
  for (const name of needs.required) if (!facts[name]) (missing ??= []).push(name);
  if (missing !== undefined) return `lacks ${missing.join(', ')}`;
  if (facts.contextWindow <= 0) return undefined;
  if (facts.contextWindow <= needs.minContextWindow) {
    return `context window ${facts.contextWindow} is not larger than ${needs.minContextWindow}, which overflowed`;
  }
  // Text only, as the adapter's own check: media costs are guesses.
  const input = () => ({
    transcript: withoutMedia(request.transcript),
    tools: request.tools,
    model: model.id,
  });
  const threshold = facts.contextWindow * contextOverflowFactor;
  // As the adapter's check (core/capability-check.ts): a bound under the threshold settles it without
  // the model's tokenizer (which costs ~1 s and tens of MB to load).
  needs.upperBound ??= estimateUpperBound(input());
  if (needs.upperBound <= threshold) return undefined;
  needs.estimate ??= registry.adapter(model.provider).estimateInputTokens(input());
  // The adapter's own rule: only an estimate far over the window is certain; a closer one is
  // dispatched, and a provider overflow fails over to a larger window.
  if (needs.estimate > threshold) {
    return `context window ${facts.contextWindow} < estimated ${needs.estimate} input tokens (over ${contextOverflowFactor}×)`;
  }
  return undefined;
}
