/** A local estimate of a request's input tokens: each publisher's own calibration of the shared counter. */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import { estimateInputTokens as estimateAnthropic } from '../anthropic/tokens.ts';
import { estimateInputTokens as estimateGemini } from '../gemini/tokens.ts';
import { publisherOf } from './model-id.ts';

/** Claude models by the Anthropic calibration, the others by Gemini's. */
export function estimateInputTokens(input: TokenEstimateInput): number {
  const model = (input.model ?? '').replace(/^vertex:/, '');
  return publisherOf(model) === 'anthropic' ? estimateAnthropic(input) : estimateGemini(input);
}
