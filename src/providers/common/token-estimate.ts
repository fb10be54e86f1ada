/** Character-based token estimates, shared by adapters without a calibrated estimator of their own. */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import type { Part } from '../../core/transcript.ts';

/** A provider's rates: characters per token, framing costs and flat costs for media. */
export interface CharacterRates {
  charactersPerToken: number;
  /** Fixed cost of a request. */
  perRequest: number;
  /** Framing per transcript item (role, separators). */
  perMessage: number;
  /** Framing per tool call and per tool result. */
  perToolPart: number;
  /** Framing per tool definition (on top of its name, description and schema). */
  perTool: number;
  /** One image. */
  image: number;
  /** Audio, video or binary media, whose length is unknown locally. */
  otherMedia: number;
  /** One file (e.g. a PDF). */
  file: number;
}

/**
 * A word-and-symbol token counter, calibrated on recorded Claude counts (see
 * `anthropic/tokens.test.ts`) and checked on recorded Gemini counts (`test/conformance/token-accuracy.test.ts`):
 * a run of letters costs 1.1 tokens per 7 letters started, a digit or a CJK character 1, any other
 * symbol 0.55.
 */
export const wordCalibration = {
  wordTokens: 1.1,
  lettersPerWordToken: 7,
  digitTokens: 1,
  symbolTokens: 0.55,
} as const;

/** CJK characters (one token each), letter runs, digits, and any other non-space symbol. */
const tokenPattern =
  /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])|(\p{L}+)|(\p{N})|([^\p{L}\p{N}\s])/gu;

/** The estimated tokens of a text by {@link wordCalibration}. */
export function countWordTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(tokenPattern)) {
    if (match[1] !== undefined || match[3] !== undefined) tokens += wordCalibration.digitTokens;
    else if (match[2] !== undefined)
      tokens += wordCalibration.wordTokens * Math.ceil(match[2].length / wordCalibration.lettersPerWordToken);
    else tokens += wordCalibration.symbolTokens;
  }
  return Math.ceil(tokens);
}

/** Counts the tokens of a text (an exact tokenizer, or a calibrated estimator). */
export type TextCounter = (text: string) => number;

/**
 * Walks `part`: every text-like piece (text, reasoning, JSON, tool names) goes to `onText`; the
 * flat token costs (framing, media) are returned.
 */
function measure(part: Part, rates: CharacterRates | undefined, onText: (text: string) => void): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      onText(part.text);
      return 0;
    case 'structured':
      onText(JSON.stringify(part.value));
      return 0;
    case 'custom':
      onText(JSON.stringify(part.data));
      return 0;
    case 'tool-call':
      onText(part.name);
      onText(JSON.stringify(part.input));
      return rates?.perToolPart ?? 0;
    case 'tool-result': {
      const output = part.output;
      const framing = rates?.perToolPart ?? 0;
      if (output.type === 'text') onText(output.text);
      else if (output.type === 'json') onText(JSON.stringify(output.value));
      else return output.parts.reduce((sum, inner) => sum + measure(inner, rates, onText), framing);
      return framing;
    }
    case 'media':
      return part.modality === 'image' ? (rates?.image ?? 0) : (rates?.otherMedia ?? 0);
    case 'file':
      return rates?.file ?? 0;
  }
}

/** Feeds every text-like piece of a request to `onText`; returns the flat tokens (framing, media). */
function walkRequest(
  input: TokenEstimateInput,
  rates: CharacterRates,
  onText: (text: string) => void,
): number {
  let tokens = rates.perRequest;
  for (const item of input.transcript) {
    tokens += rates.perMessage;
    for (const part of item.parts) tokens += measure(part, rates, onText);
  }
  for (const tool of input.tools ?? []) {
    tokens += rates.perTool;
    onText(tool.name);
    if (tool.description !== undefined) onText(tool.description);
    onText(JSON.stringify(tool.inputSchema));
  }
  return tokens;
}

/** Estimates a request's input tokens: characters ÷ rate, plus framing and flat media costs. */
export function estimateByCharacters(input: TokenEstimateInput, rates: CharacterRates): number {
  let characters = 0;
  const tokens = walkRequest(input, rates, (text) => (characters += text.length));
  return Math.ceil(characters / rates.charactersPerToken) + tokens;
}

/** Estimates a request's input tokens with a text counter (e.g. an exact tokenizer), plus framing and media. */
export function estimateByCounter(
  input: TokenEstimateInput,
  rates: CharacterRates,
  count: TextCounter,
): number {
  const { stopAbove } = input;
  let textTokens = 0;
  if (stopAbove === undefined) {
    const tokens = walkRequest(input, rates, (text) => (textTokens += count(text)));
    return textTokens + tokens;
  }
  // Asked only whether the input is above `stopAbove`: count text by text, a long one in pieces
  // cut at word breaks, and stop once past it (an exact counter costs time per character).
  const texts: string[] = [];
  const flat = walkRequest(input, rates, (text) => texts.push(text));
  for (const text of texts)
    for (let start = 0; start < text.length;) {
      const end = wordBreakAfter(text, start + countingPiece);
      textTokens += count(start === 0 && end === text.length ? text : text.slice(start, end));
      if (flat + textTokens > stopAbove) return flat + textTokens;
      start = end;
    }
  return flat + textTokens;
}

/** Characters counted between two checks against `stopAbove` (~16k tokens of prose). */
const countingPiece = 64 * 1024;

/**
 * The first word break at or after `from` — before an ASCII space that follows a printable ASCII
 * character, where the BPE pre-tokenizers always split, so the pieces count as the whole — or the
 * text's end; past 4,096 characters without one, `from` + 4,096 (a piece cut there may count a
 * token more).
 */
function wordBreakAfter(text: string, from: number): number {
  if (from >= text.length) return text.length;
  const limit = Math.min(text.length, from + 4096);
  for (let index = Math.max(from, 1); index < limit; index++) {
    const previous = text.charCodeAt(index - 1);
    if (text.charCodeAt(index) === 32 && previous > 32 && previous < 127) return index;
  }
  if (limit === text.length) return limit;
  // Never between the halves of a surrogate pair.
  const code = text.charCodeAt(limit);
  return code >= 0xdc00 && code <= 0xdfff ? limit + 1 : limit;
}

/** Estimated output tokens of response content (text, reasoning, tool inputs) at four characters a token. */
export function estimateOutputTokens(parts: readonly Part[]): number {
  let characters = 0;
  for (const part of parts) measure(part, undefined, (text) => (characters += text.length));
  return Math.ceil(characters / 4);
}

/** Framing allowances of {@link estimateUpperBound}: above every adapter's own framing costs. */
const boundRates: CharacterRates = {
  charactersPerToken: 1,
  perRequest: 1024,
  perMessage: 16,
  perToolPart: 16,
  perTool: 64,
  image: 0,
  otherMedia: 0,
  file: 0,
};

/**
 * A cheap bound no adapter's text estimate exceeds: 1.1 tokens per UTF-8 byte (an exact byte-level
 * BPE tokenizer gives at least one byte per token; the calibrated counters charge at most 1.1 a
 * character, and a character is at least one byte; character estimators 0.25) plus generous framing
 * (1,024 per request, which covers Anthropic's tool-use prompt, 16 per item and tool part, 64 per
 * tool). Byte lengths are native (`Buffer.byteLength`), so the bound costs a walk, not a count.
 * Media are not counted: use on text-only input. Proven above every estimator in `token-estimate.test.ts`.
 */
export function estimateUpperBound(input: TokenEstimateInput): number {
  let bytes = 0;
  const flat = walkRequest(input, boundRates, (text) => (bytes += Buffer.byteLength(text, 'utf8')));
  return Math.ceil(1.1 * bytes) + flat;
}
