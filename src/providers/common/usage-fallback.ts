/** docs/contract.md §7.2: when a provider sends no usage, estimate it, say so in metadata, and WARN. */
import type { CanonicalRequest } from '../../core/request.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext, ProviderDefinition } from './definition.ts';
import { estimateOutputTokens } from './token-estimate.ts';

/**
 * Characters of the prompt an estimate of missing usage counts exactly (~64k tokens; ~40 ms of an
 * OpenAI tokenizer, which runs at about 6 MiB a second): past them the adapter's estimator may
 * extrapolate at the rate it measured (`TokenEstimateInput.exactCharacters`). A production caller
 * waits for this estimate at the end of every call without usage, so its time is bounded, not
 * proportional to a prompt that may be 32 MiB (seconds of tokenizer); the count stays an
 * estimate either way (`switchyard.usage_estimated`), within a few percent for a prompt of one
 * kind of text, and exact for a prompt within the sample.
 */
export const usageEstimateExactCharacters = 256 * 1024;

/**
 * Fills usage the provider did not report: input from the adapter's own pre-flight estimate
 * (counted exactly up to {@link usageEstimateExactCharacters}, extrapolated past them), output from
 * the received content. Marks the response `switchyard.usage_estimated: true` and logs a
 * structured WARN, so analytics can tell estimates from reported counts.
 */
export function estimateMissingUsage(
  builder: StreamBuilder,
  request: CanonicalRequest,
  definition: ProviderDefinition,
  context: ProviderContext,
): void {
  const input = definition.estimateInputTokens({
    transcript: request.transcript,
    tools: request.tools,
    model: context.model,
    exactCharacters: usageEstimateExactCharacters,
  });
  const output = estimateOutputTokens(builder.contentSoFar());
  builder.usage({ input, output });
  builder.setMetadata('switchyard.usage_estimated', true);
  context.warn('the provider reported no usage; it was estimated', { input, output });
}
