/** A local, network-free estimate of a request's input tokens: the shared word-and-symbol counter. */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import { estimateInputTokens as estimateAnthropic } from '../anthropic/tokens.ts';

/**
 * Bedrock serves many families and counts with each one's tokenizer; none is published offline.
 * The Anthropic calibration of the shared counter (Claude is most of Bedrock's traffic) is used
 * for every model.
 */
export function estimateInputTokens(input: TokenEstimateInput): number {
  return estimateAnthropic(input);
}
