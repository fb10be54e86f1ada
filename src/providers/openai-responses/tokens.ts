/** A local, network-free estimate of a Responses request's input tokens. */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import { openaiRates, estimateOpenAIInputTokens } from '../openai/tokens.ts';

/**
 * Responses input items are counted like chat messages: the same tokenizers and framing rates
 * (OpenAI documents no framing of its own for items).
 */
export function estimateInputTokens(input: TokenEstimateInput): number {
  return estimateOpenAIInputTokens(input, openaiRates);
}
