/** A local, network-free estimate of a request's input tokens (aims for ±10% on text). */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import { type CharacterRates, countWordTokens, estimateByCounter } from '../common/token-estimate.ts';

const rates: CharacterRates = {
  // Unused: text is counted by words and symbols (`countWordTokens`), not by characters.
  charactersPerToken: 4,
  perRequest: 0,
  perMessage: 4, // role and turn framing
  perToolPart: 0,
  perTool: 0,
  // Gemini's documented cost of one image (≤384 px a side; larger images tile at the same rate).
  image: 258,
  // A rough allowance for audio, video and documents, whose length is unknown locally.
  otherMedia: 1024,
  file: 1024,
};

/**
 * Estimates input tokens: text and JSON by the shared word-and-symbol counter (within 4% of the
 * recorded Gemini counts, see `test/conformance/token-accuracy.test.ts`; four characters per token
 * was 29% low on them), media by Gemini's per-item rates.
 */
export function estimateInputTokens(input: TokenEstimateInput): number {
  return estimateByCounter(input, rates, countWordTokens);
}
