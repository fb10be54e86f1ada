/** A local, network-free estimate of a Chat Completions request's input tokens. */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import { estimateOpenAIInputTokens } from '../openai/tokens.ts';

/**
 * OpenAI models are counted with their own tokenizer plus the framing OpenAI documents for chat
 * messages; other models (compatible hosts with their own tokenizers) at four characters per token.
 */
export function estimateInputTokens(input: TokenEstimateInput): number {
  return estimateOpenAIInputTokens(input);
}
