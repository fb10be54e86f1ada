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
 * symbol 0.55, a run of whitespace 1 per 16 whitespace characters it holds (rounded down).
 *
 * Whitespace: a run shorter than 16 (the space before a word, a paragraph break, an indent) costs
 * nothing, as in the calibration, where the tokens around it absorb it; a longer run is not free,
 * or a body of 30 MiB of spaces would count as nothing and pass any context-window check. The BPE
 * tokenizers merge a whitespace run into tokens of bounded length: o200k and cl100k count 16
 * newlines or 16 tabs a token (cl100k 32 newlines), 128 spaces a token, alternating spaces and
 * newlines 4 characters a token (`token-estimate.test.ts` checks the rate stays between them).
 */
export const wordCalibration = {
  wordTokens: 1.1,
  lettersPerWordToken: 7,
  digitTokens: 1,
  symbolTokens: 0.55,
  whitespacePerToken: 16,
} as const;

/**
 * What {@link countWordTokens} counts, as one pattern: CJK characters (one token each), letter runs,
 * digits, any other non-space symbol, and whitespace runs. The counter classifies BMP characters itself (each
 * character's class found by these regular expressions once, then kept) and runs the pattern only
 * where a surrogate pair starts a token; tests check it against the pattern.
 */
const wordTokenPattern =
  /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])|(\p{L}+)|(\p{N})|([^\p{L}\p{N}\s])|(\s+)/uy;
const cjkPattern = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const lettersAt = /\p{L}+/uy;

/** Classes of BMP characters, as the pattern treats them. */
const space = 1;
/** A letter outside the CJK scripts: starts or continues a letter run. */
const letter = 2;
/** A CJK letter: one token where a token starts, part of a letter run already started. */
const cjkLetter = 3;
/** One token of its own, never part of a letter run: a digit, a CJK character that is no letter. */
const single = 4;
const symbol = 5;

/** The class of each BMP character met so far (0: not classified yet); surrogates are not classified. */
const bmpClasses = new Uint8Array(0x10000);
for (let code = 0; code < 128; code++) bmpClasses[code] = classify(code);

function classify(code: number): number {
  const character = String.fromCharCode(code);
  if (/\s/.test(character)) return space;
  if (cjkPattern.test(character)) return /\p{L}/u.test(character) ? cjkLetter : single;
  if (/\p{L}/u.test(character)) return letter;
  return /\p{N}/u.test(character) ? single : symbol;
}

/** The class of the BMP character `code` (not a surrogate). */
function classOf(code: number): number {
  const known = bmpClasses[code]!;
  return known === 0 ? (bmpClasses[code] = classify(code)) : known;
}

const isSurrogate = (code: number) => code >= 0xd800 && code <= 0xdfff;

/** The end of the letter run that goes on at `from` (through CJK letters and astral letters too). */
function letterRunEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90)) {
      end++;
      continue;
    }
    if (isSurrogate(code)) {
      lettersAt.lastIndex = end;
      return lettersAt.test(text) ? lettersAt.lastIndex : end;
    }
    const kind = classOf(code);
    if (kind !== letter && kind !== cjkLetter) return end;
    end++;
  }
  return end;
}

/**
 * The end of the whitespace run that goes on at `from`, or `limit` (a run is measured a piece at a
 * time, so that counting with `stopAbove` stops inside a long one). No whitespace is a surrogate.
 */
function spaceRunEnd(text: string, from: number, limit: number): number {
  let end = from;
  while (end < limit) {
    const code = text.charCodeAt(end);
    if (code === 32 || (code >= 9 && code <= 13)) end++;
    else if (code < 128 || isSurrogate(code) || classOf(code) !== space) return end;
    else end++;
  }
  return end;
}

/** Whitespace measured at once by {@link countWordTokens} (a multiple of `whitespacePerToken`). */
const spacePiece = 64 * 1024;

/**
 * The estimated tokens of a text by {@link wordCalibration}: each match of {@link wordTokenPattern}
 * in order. With `stopAbove`, counting stops once the count is past it (the caller only asks
 * whether the text is over a limit) and returns that count, a number above it; below it, the
 * count is the whole count. Linear in the part of the text counted, and no match object is made
 * for a BMP character (a regular expression over every token was 5–10× slower).
 */
export function countWordTokens(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  // Malformed input throws, as the pattern's `matchAll` did (`estimateChecked` relies on it).
  if (typeof text !== 'string') throw new TypeError('countWordTokens: the text is not a string');
  const { wordTokens, lettersPerWordToken, digitTokens, symbolTokens, whitespacePerToken } = wordCalibration;
  let tokens = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (isSurrogate(code)) {
      wordTokenPattern.lastIndex = index;
      // Every character but a space starts a token, and no space is a surrogate.
      const match = wordTokenPattern.exec(text)!;
      if (match[2] !== undefined) tokens += wordTokens * Math.ceil(match[2].length / lettersPerWordToken);
      else tokens += match[4] === undefined ? digitTokens : symbolTokens;
      index = wordTokenPattern.lastIndex;
    } else {
      const kind = classOf(code);
      if (kind === letter) {
        const end = letterRunEnd(text, index + 1);
        tokens += wordTokens * Math.ceil((end - index) / lettersPerWordToken);
        index = end;
      } else {
        index++;
        if (kind !== space) tokens += kind === symbol ? symbolTokens : digitTokens;
        // A single space (the common case: between words) costs nothing; a run is measured (a
        // surrogate classifies as a symbol, never as a space).
        else if (index < text.length && classOf(text.charCodeAt(index)) === space) {
          const end = spaceRunEnd(text, index, Math.min(text.length, index - 1 + spacePiece));
          const run = end - index + 1;
          if (run >= whitespacePerToken) tokens += Math.floor(run / whitespacePerToken);
          index = end;
        } else continue;
      }
    }
    if (tokens > stopAbove) break;
  }
  return Math.ceil(tokens);
}

/** Counts the tokens of a text (an exact tokenizer, or a calibrated estimator). */
export type TextCounter = (text: string) => number;

/** The key of a {@link TextPiece} that is a JSON value (private: no input can spell it). */
const json = Symbol('json');

/**
 * A text-like piece of a request kept for later (the counter's stop-aware path): its text, or a JSON
 * value counted as its JSON text, made ({@link textOf}) only when the piece is counted (a count
 * that stops early never makes the rest).
 */
type TextPiece = string | { [json]: unknown };

const textOf = (piece: TextPiece): string =>
  typeof piece === 'object' && piece !== null && json in piece
    ? JSON.stringify(piece[json])
    : (piece as string);

/**
 * Receives each text-like piece as the walk meets it: a text (`isJson` false), or a JSON value
 * counted as its JSON text ({@link textOfValue}), which the receiver writes out only if it counts
 * it. Anything else a malformed input holds in place of a text is passed on as it is, for the
 * counter to throw on (`estimateChecked` then names the bad path). Two arguments, no wrapper: the
 * walk allocates nothing per piece (it runs on every routed call).
 */
type OnText = (value: unknown, isJson: boolean) => void;

const textOfValue = (value: unknown, isJson: boolean): string =>
  isJson ? JSON.stringify(value) : (value as string);

/**
 * Walks `part`: every text-like piece (text, reasoning, JSON, tool names) goes to `onText`; the
 * flat token costs (framing, media) are returned.
 */
function measure(part: Part, rates: CharacterRates | undefined, onText: OnText): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      onText(part.text, false);
      return 0;
    case 'structured':
      onText(part.value, true);
      return 0;
    case 'custom':
      onText(part.data, true);
      return 0;
    case 'tool-call':
      onText(part.name, false);
      onText(part.input, true);
      return rates?.perToolPart ?? 0;
    case 'tool-result': {
      const output = part.output;
      const framing = rates?.perToolPart ?? 0;
      if (output.type === 'text') onText(output.text, false);
      else if (output.type === 'json') onText(output.value, true);
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
function walkRequest(input: TokenEstimateInput, rates: CharacterRates, onText: OnText): number {
  let tokens = rates.perRequest;
  for (const item of input.transcript) {
    tokens += rates.perMessage;
    for (const part of item.parts) tokens += measure(part, rates, onText);
  }
  for (const tool of input.tools ?? []) {
    tokens += rates.perTool;
    onText(tool.name, false);
    if (tool.description !== undefined) onText(tool.description, false);
    onText(tool.inputSchema, true);
  }
  return tokens;
}

/** Estimates a request's input tokens: characters ÷ rate, plus framing and flat media costs. */
export function estimateByCharacters(input: TokenEstimateInput, rates: CharacterRates): number {
  let characters = 0;
  const tokens = walkRequest(
    input,
    rates,
    (value, isJson) => (characters += textOfValue(value, isJson).length),
  );
  return Math.ceil(characters / rates.charactersPerToken) + tokens;
}

/**
 * Estimates a request's input tokens with a text counter (e.g. an exact tokenizer), plus framing and
 * media. `lowerBound`, for a costly counter: a cheap count never above `count`'s (as
 * {@link countWordStarts} for the BPE tokenizers), tried first when the caller asks only whether
 * the input is above `stopAbove`.
 */
export function estimateByCounter(
  input: TokenEstimateInput,
  rates: CharacterRates,
  count: TextCounter,
  lowerBound?: (text: string, stopAbove: number) => number,
): number {
  const { stopAbove, exactCharacters } = input;
  let textTokens = 0;
  if (stopAbove === undefined) {
    if (exactCharacters !== undefined) return estimateBySample(input, rates, count, exactCharacters);
    const tokens = walkRequest(
      input,
      rates,
      (value, isJson) => (textTokens += count(textOfValue(value, isJson))),
    );
    return textTokens + tokens;
  }
  // Asked only whether the input is above `stopAbove`: count text by text, a long one in pieces
  // cut at word breaks, and stop once past it (an exact counter costs time per character; a JSON
  // value past that point is never even written out).
  const pieces: TextPiece[] = [];
  const flat = walkRequest(input, rates, (value, isJson) =>
    pieces.push(isJson ? { [json]: value } : (value as string)),
  );
  const texts: TextPiece[] = lowerBound === undefined ? pieces : [];
  if (lowerBound !== undefined) {
    // The cheap bound first: a body far over the limit (a 32 MiB body is millions of tokens) is
    // settled without the counter.
    let bound = flat;
    for (const piece of pieces) {
      const text = textOf(piece);
      texts.push(text);
      bound += lowerBound(text, stopAbove - bound);
      if (bound > stopAbove) return bound;
    }
  }
  for (const piece of texts) {
    const text = textOf(piece);
    for (let start = 0; start < text.length;) {
      const end = wordBreakAfter(text, start + countingPiece);
      textTokens += count(start === 0 && end === text.length ? text : text.slice(start, end));
      if (flat + textTokens > stopAbove) return flat + textTokens;
      start = end;
    }
  }
  return flat + textTokens;
}

/**
 * {@link estimateByCounter} with `exactCharacters`: the first `exactCharacters` characters of text
 * (in the walk's order, the last piece cut at a word break) counted exactly, the rest at the tokens
 * per character counted on them (at `rates.charactersPerToken` when none was counted), so a costly
 * counter's time is bounded whatever the body's size; a body within it is counted exactly.
 */
function estimateBySample(
  input: TokenEstimateInput,
  rates: CharacterRates,
  count: TextCounter,
  exactCharacters: number,
): number {
  let counted = 0;
  let countedTokens = 0;
  let rest = 0;
  const flat = walkRequest(input, rates, (value, isJson) => {
    const text = textOfValue(value, isJson);
    const room = exactCharacters - counted;
    // (Not a string: the counter throws, as for the whole walk.)
    if (!(text.length > room)) {
      countedTokens += count(text);
      counted += text.length;
      return;
    }
    const end = room > 0 ? wordBreakAfter(text, room) : 0;
    if (end > 0) countedTokens += count(text.slice(0, end));
    counted += end;
    rest += text.length - end;
  });
  if (rest === 0) return countedTokens + flat;
  const perCharacter = counted > 0 ? countedTokens / counted : 1 / rates.charactersPerToken;
  return countedTokens + Math.ceil(rest * perCharacter) + flat;
}

/**
 * A lower bound of the tokens of `text` by every counter here — the word-and-symbol counter and
 * the BPE tokenizers (o200k, cl100k) — in one pass over its characters: the runs of ASCII letters
 * and digits that follow an ASCII character other than `'` (or start the text). Each starts a
 * token of its own: a BPE pre-token holds at most one non-letter before its letters (and an
 * apostrophe only in a contraction: `don't`), digits only with digits; the word counter counts
 * every letter run and digit. With `stopAbove`, stops once the count is past it.
 */
export function countWordStarts(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let words = 0;
  // The previous character's class: 2 when an ASCII letter or digit after it starts a word.
  let previous = 2;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const kind = code < 128 ? asciiWordClasses[code]! : 0;
    // Branch-free: one more word where a letter or digit (1) follows a class-2 character.
    words += kind & (previous >> 1);
    previous = kind;
    if (words > stopAbove) return words;
  }
  return words;
}

/** {@link countWordStarts}'s classes of ASCII: 1 a letter or digit, 2 any other character but `'`. */
const asciiWordClasses = Uint8Array.from({ length: 128 }, (_, code) =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57)
    ? 1
    : code === 39
      ? 0
      : 2,
);

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
  for (const part of parts)
    measure(part, undefined, (value, isJson) => (characters += textOfValue(value, isJson).length));
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
 * With `input.stopAbove` the walk stops once the bound is past it, and returns the bound so far
 * (a number above it): the rest of a large body is neither measured nor written out as JSON.
 */
export function estimateUpperBound(input: TokenEstimateInput): number {
  const { stopAbove } = input;
  let bytes = 0;
  if (stopAbove === undefined) {
    const flat = walkRequest(
      input,
      boundRates,
      (value, isJson) => (bytes += Buffer.byteLength(textOfValue(value, isJson), 'utf8')),
    );
    return Math.ceil(1.1 * bytes) + flat;
  }
  // Measured as the walk meets each piece, until the bytes alone put the bound past `stopAbove`
  // (the flat costs only add to it): the rest is neither measured nor written out as JSON.
  const room = stopAbove / 1.1;
  let past = false;
  const flat = walkRequest(input, boundRates, (value, isJson) => {
    if (past) return;
    bytes += utf8Length(textOfValue(value, isJson), room - bytes);
    past = Math.ceil(1.1 * bytes) > stopAbove;
  });
  return Math.ceil(1.1 * bytes) + flat;
}

/** Characters measured at once by {@link utf8Length} (~2 ms). */
const measuredPiece = 1024 * 1024;

/**
 * `Buffer.byteLength(text)`, measured a megabyte of characters at a time (never between the halves
 * of a surrogate pair, so the sum is the whole's) until past `stopAbove` bytes.
 */
function utf8Length(text: string, stopAbove: number): number {
  // (Not a string: Buffer.byteLength throws, as for the whole walk.)
  if (!(text.length > measuredPiece)) return Buffer.byteLength(text, 'utf8');
  let bytes = 0;
  for (let start = 0; start < text.length && bytes <= stopAbove;) {
    let end = Math.min(text.length, start + measuredPiece);
    const code = text.charCodeAt(end);
    if (code >= 0xdc00 && code <= 0xdfff) end++;
    bytes += Buffer.byteLength(text.slice(start, end), 'utf8');
    start = end;
  }
  return bytes;
}
