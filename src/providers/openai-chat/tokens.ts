/** A local, network-free estimate of a Chat Completions request's input tokens. */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import { type CharacterRates, estimateByCharacters } from '../shared/token-estimate.ts';

/** o200k / cl100k style tokenizers average four characters of English text and code per token. */
const rates: CharacterRates = {
  charactersPerToken: 4,
  perRequest: 3,
  // Role and separators of each message; tool calls, results and definitions cost as much framing.
  perMessage: 4,
  perToolPart: 4,
  perTool: 4,
  // A high-detail image tile budget (85 base + 4 tiles × 170), OpenAI's typical 1024² image.
  image: 765,
  otherMedia: 0,
  // Rough cost of a PDF (text plus page images).
  file: 1_500,
};

/** Estimates input tokens at four characters per token plus framing and flat media costs (aims for ±10% on text). */
export function estimateInputTokens(input: TokenEstimateInput): number {
  return estimateByCharacters(input, rates);
}
