/** Pre-dispatch checks: which candidates can take a request, and why the others are skipped. */
import { contextOverflowFactor } from '../core/capability-check.ts';
import { type CapabilityName, requiredCapabilities } from '../core/capabilities.ts';
import type { CanonicalRequest } from '../core/request.ts';
import { withoutMedia } from '../providers/common/preflight.ts';
import type { ModelFacts } from '../registry/model-facts.ts';
import type { Registry, ResolvedModel } from '../registry/registry.ts';

/** Per-call facts computed at most once. */
export interface CallNeeds {
  required: Set<CapabilityName>;
  /** The local input-token estimate, computed on first need. */
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
  needs.estimate ??= registry.adapter(model.provider).estimateInputTokens({
    // Text only, as the adapter's own check: media costs are guesses.
    transcript: withoutMedia(request.transcript),
    tools: request.tools,
    model: model.id,
  });
  // The adapter's own rule (core/capability-check.ts): only an estimate far over the window is
  // certain; a closer one is dispatched, and a provider overflow fails over to a larger window.
  if (needs.estimate > facts.contextWindow * contextOverflowFactor) {
    return `context window ${facts.contextWindow} < estimated ${needs.estimate} input tokens (over ${contextOverflowFactor}×)`;
  }
  return undefined;
}
