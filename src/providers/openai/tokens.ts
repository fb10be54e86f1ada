/** OpenAI's local, network-free token estimate, shared by Chat Completions and Responses (each folder's `tokens.ts` calls it). */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import {
  type CharacterRates,
  countWordStarts,
  estimateByCharacters,
  estimateByCounter,
} from '../common/token-estimate.ts';
import { encodingFor, tokenCounter } from './tokenizer.ts';

/**
 * Framing as OpenAI documents it for chat models: 3 tokens per message plus 1 for its role, 3 to
 * prime the reply. Without a known model the text is counted at four characters per token.
 */
export const openaiRates: CharacterRates = {
  charactersPerToken: 4,
  perRequest: 3,
  perMessage: 4,
  // Tool calls, results and definitions carry about as much framing as a message.
  perToolPart: 4,
  perTool: 4,
  // A high-detail image tile budget (85 base + 4 tiles × 170), OpenAI's typical 1024² image.
  image: 765,
  otherMedia: 0,
  // Rough cost of a PDF (text plus page images).
  file: 1_500,
};

/**
 * Estimates input tokens. For OpenAI models (`input.model`: GPT-4o, 4.1, 5, o-series, GPT-4, 3.5)
 * text is counted exactly with the model's tokenizer (`gpt-tokenizer`, loaded lazily on the first
 * estimate); framing and media are added at the documented rates. Other models (compatible hosts
 * with their own tokenizers) are estimated at four characters per token.
 */
export function estimateOpenAIInputTokens(
  input: TokenEstimateInput,
  rates: CharacterRates = openaiRates,
): number {
  const encoding = input.model === undefined ? undefined : encodingFor(input.model);
  const count = encoding === undefined ? undefined : tokenCounter(encoding);
  // Asked whether the input is above a limit, the tokenizer (0.3–0.8 M tokens a second: seconds
  // for a 32 MiB body) runs only where the words of the text do not already settle it.
  return count === undefined
    ? estimateByCharacters(input, rates)
    : estimateByCounter(input, rates, count, countWordStarts);
}
