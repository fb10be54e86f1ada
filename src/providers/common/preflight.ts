/**
 * The one pre-flight check of the shared runtime: every declared capability against the request,
 * before any HTTP call, for every adapter (docs/contract.md §3.4).
 */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import {
  assertContextWindow,
  assertLimits,
  assertSupported,
  contextWindowOf,
  sendsClientBetas,
} from '../../core/capability-check.ts';
import type { Capabilities } from '../../core/capabilities.ts';
import { type CanonicalRequest, isKeyOnly } from '../../core/request.ts';
import type { Item, Part } from '../../core/transcript.ts';
import { routedModel } from './routed.ts';
import { estimateUpperBound } from './token-estimate.ts';

/** What the check needs of the call. */
export interface PreflightContext {
  provider: string;
  /**
   * The provider's own name (`anthropic` for an Anthropic adapter named `work-claude`): whether a
   * client's own beta flags are sent is the provider's (`sendsClientBetas`), whatever the adapter is named.
   */
  ownName: string;
  model: string;
  /** The adapter's local input estimate. */
  estimateInputTokens(input: TokenEstimateInput): number;
  /** The runtime's structured WARN (adapter, request and session ids added). */
  warn(message: string, fields: Record<string, unknown>): void;
}

/**
 * Checks `request` against `capabilities` and returns the request to send. A request the router
 * checked (`routed.ts`: it carries the router's bound model) skips the two decisions the router made (capabilities, context
 * window); the rest applies to every call:
 * - a missing capability, a media type the model does not take or an output limit above the
 *   model's: `InvalidRequestError` (`assertCapabilities`);
 * - text alone estimated over 1.5× the context window: `ContextOverflowError` (`assertContextWindow`;
 *   media and files are left out of the estimate, whose flat costs for them are guesses);
 * - `cache` on a model without prompt caching: the request without `cache`, and one WARN
 *   `prompt cache not used` (a cache is an optimisation, so the call goes on);
 * - an effort without thinking (`reasoning.thinking: false`, Anthropic's `output_config.effort`
 *   alone) on a model that does not reason: the request without `reasoning`, and one WARN
 *   `dropped the effort: the model does not reason` (it asked for no reasoning, so the call goes on).
 */
export function preflight(
  request: CanonicalRequest,
  capabilities: Capabilities,
  context: PreflightContext,
): CanonicalRequest {
  const names = { provider: context.provider, model: context.model };
  const prechecked = routedModel(request) !== undefined;
  if (!prechecked) assertSupported(request, capabilities, names);
  assertLimits(request, capabilities, names);
  if (!prechecked) checkContextWindow(request, capabilities, context);
  const checked = withoutUnusedEffort(request, capabilities, context);
  if (checked.cache === undefined || capabilities.promptCaching) return checked;
  // A key alone (an OpenAI client's prompt_cache_key, sent on every request) is a routing hint,
  // not a request for a cache: dropped without a WARN each call.
  if (!isKeyOnly(checked.cache))
    context.warn('prompt cache not used', {
      reason: `model ${context.model} has no prompt caching (capabilities.promptCaching is false)`,
    });
  const { cache: _dropped, ...withoutCache } = checked;
  return withoutCache;
}

/** The request without an effort-only `reasoning` (`thinking: false`) a model that does not reason cannot take. */
function withoutUnusedEffort(
  request: CanonicalRequest,
  capabilities: Capabilities,
  context: PreflightContext,
): CanonicalRequest {
  const reasoning = request.reasoning;
  if (reasoning?.thinking !== false || reasoning.effort === 'none' || capabilities.reasoning) return request;
  if (reasoning.effort !== undefined)
    context.warn('dropped the effort: the model does not reason', {
      model: context.model,
      requested: reasoning.effort,
    });
  const { reasoning: _dropped, ...withoutReasoning } = request;
  return withoutReasoning;
}

/** The context-window rule, for a call that did not come through the router. */
function checkContextWindow(
  request: CanonicalRequest,
  capabilities: Capabilities,
  context: PreflightContext,
): void {
  let textOnly: TokenEstimateInput | undefined;
  const input = () =>
    (textOnly ??= {
      transcript: withoutMedia(request.transcript),
      tools: request.tools,
      model: request.model,
    });
  assertContextWindow(
    contextWindowOf(capabilities, request, sendsClientBetas(context.ownName)),
    { provider: context.provider, model: context.model, requestId: request.requestId },
    (stopAbove) => estimateUpperBound({ ...input(), stopAbove }),
    (stopAbove) => context.estimateInputTokens({ ...input(), stopAbove }),
  );
}

/**
 * The transcript without media and file parts (inside tool results too), for the context check:
 * their flat token costs are guesses, so only text counts. Unchanged items are reused.
 */
export function withoutMedia(transcript: readonly Item[]): Item[] {
  return transcript.map((item) => {
    const parts = textParts(item.parts);
    return parts === item.parts ? item : { ...item, parts };
  });
}

function textParts(parts: Part[]): Part[] {
  let changed = false;
  const kept: Part[] = [];
  for (const part of parts) {
    if (part.type === 'media' || part.type === 'file') {
      changed = true;
    } else if (part.type === 'tool-result' && part.output.type === 'parts') {
      const inner = textParts(part.output.parts);
      if (inner !== part.output.parts) changed = true;
      kept.push(inner === part.output.parts ? part : { ...part, output: { type: 'parts', parts: inner } });
    } else {
      kept.push(part);
    }
  }
  return changed ? kept : parts;
}
