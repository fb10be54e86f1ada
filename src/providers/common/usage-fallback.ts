/** docs/contract.md §7.2: when a provider sends no usage, estimate it, say so in metadata, and WARN. */
import type { CanonicalRequest } from '../../core/request.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext, ProviderDefinition } from './definition.ts';
import { estimateOutputTokens } from './token-estimate.ts';

/**
 * Fills usage the provider did not report: input from the adapter's own pre-flight estimate,
 * output from the received content. Marks the response `switchyard.usage_estimated: true` and
 * logs a structured WARN, so analytics can tell estimates from reported counts.
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
  });
  const output = estimateOutputTokens(builder.contentSoFar());
  builder.usage({ input, output });
  builder.setMetadata('switchyard.usage_estimated', true);
  context.warn('the provider reported no usage; it was estimated', { input, output });
}
