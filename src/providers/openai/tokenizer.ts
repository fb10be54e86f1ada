/** OpenAI's exact tokenizers (o200k_base, cl100k_base via `gpt-tokenizer`), loaded on first use. */
import { createRequire } from 'node:module';
import { splitModelId } from '../../core/ids.ts';
import type { TextCounter } from '../common/token-estimate.ts';

/** The BPE encodings OpenAI chat models use. */
export type OpenAIEncoding = 'o200k_base' | 'cl100k_base';

/**
 * The encoding of a model name (with or without the `openai:` prefix): `o200k_base` for GPT-4o,
 * GPT-4.1, GPT-4.5, GPT-5, the o-series and gpt-oss; `cl100k_base` for GPT-4 and GPT-3.5 Turbo;
 * undefined for names it does not know (the caller then estimates by characters).
 */
export function encodingFor(model: string): OpenAIEncoding | undefined {
  const name = splitModelId(model).name.replace(/^openai\//, '');
  if (/^(?:gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o[1-9]|gpt-oss|codex)/.test(name)) return 'o200k_base';
  if (/^(?:gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(name)) return 'cl100k_base';
  return undefined;
}

const counters = new Map<OpenAIEncoding, TextCounter | null>();
const load = createRequire(import.meta.url);

/**
 * The token counter of `encoding`, loading its ranks on first use (about 1 s and tens of MB, so
 * never at import). Returns undefined when the package cannot be loaded (e.g. a bundle without it).
 */
export function tokenCounter(encoding: OpenAIEncoding): TextCounter | undefined {
  let counter = counters.get(encoding);
  if (counter === undefined) {
    try {
      const module = load(`gpt-tokenizer/encoding/${encoding}`) as {
        countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
      };
      // Special-token text (`<|endoftext|>`) in a prompt is plain text to count, as the API counts it.
      const options = { disallowedSpecial: new Set<string>() };
      counter = (text: string) => countInRuns(text, (piece) => module.countTokens(piece, options));
    } catch {
      counter = null;
    }
    counters.set(encoding, counter);
  }
  return counter ?? undefined;
}

/**
 * Longest run of one kind of character (letters, whitespace, symbols) given to the BPE at once.
 * gpt-tokenizer merges a pre-token's pairs in time quadratic in its length: one letter repeated
 * 250,000 times took 22 s on the main thread, 10,000 times 26 ms, 256 times at most 0.1 ms. No
 * token of these vocabularies is nearly this long.
 */
export const maxTokenizerRun = 256;

/** Kinds of characters as the o200k / cl100k pre-tokenizers group them. */
const space = 1;
const letter = 2;
const digit = 3;
const symbol = 4;
/** A combining mark or the low half of a surrogate pair: part of the run before it. */
const continues = 5;

/** The kinds of BMP code units met so far (0: not classified yet). */
const bmpKinds = new Uint8Array(0x10000);

/** The kind of one character, by the pre-tokenizers' own classes (JavaScript's `\s`, `\p{L}`, `\p{M}`, `\p{N}`). */
function classify(character: string): number {
  if (/\s/.test(character)) return space;
  if (/\p{M}/u.test(character)) return continues;
  if (/\p{L}/u.test(character)) return letter;
  if (/\p{N}/u.test(character)) return digit;
  return symbol;
}

function kindAt(text: string, index: number, code: number): number {
  if (code < 128) {
    if (code === 32 || (code >= 9 && code <= 13)) return space;
    if (code >= 48 && code <= 57) return digit;
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return letter;
    return symbol;
  }
  if (code >= 0xdc00 && code <= 0xdfff) return continues;
  if (code >= 0xd800 && code <= 0xdbff) return classify(String.fromCodePoint(text.codePointAt(index)!));
  let kind = bmpKinds[code]!;
  if (kind === 0) bmpKinds[code] = kind = classify(String.fromCharCode(code));
  return kind;
}

/**
 * Counts `text` with `count`, in one call unless it holds a run of one kind of character longer
 * than {@link maxTokenizerRun}, or of `\r`, `\n` and `/` — the only ways a pre-token gets long
 * (digits are grouped by three; a symbol pre-token ends in newlines and slashes).
 * Such a run is cut every `maxTokenizerRun` units (never inside a surrogate pair) and the pieces
 * counted apart, so counting costs time linear in the text, at most a token more per cut than the
 * exact count. Ordinary prose, code, JSON and CJK with punctuation are counted in one call, exactly.
 */
export function countInRuns(text: string, count: (piece: string) => number): number {
  let total = 0;
  let start = 0;
  let kind = 0;
  let run = 0;
  // o200k's symbol pre-token ends in any run of `\r`, `\n` and `/` (cl100k's in `\r` and `\n`):
  // `/\n/\n…` is one pre-token of two kinds.
  let tail = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    tail = code === 10 || code === 13 || code === 47 ? tail + 1 : 0;
    let next = kindAt(text, index, code);
    if (next === continues) next = kind === 0 || kind === digit ? symbol : kind;
    if (next === digit || next !== kind) {
      kind = next;
      run = 1;
      if (tail <= maxTokenizerRun) continue;
    } else if (++run <= maxTokenizerRun && tail <= maxTokenizerRun) continue;
    // A low surrogate stays with its high one: cut before the pair.
    const cut = code >= 0xdc00 && code <= 0xdfff && index - 1 > start ? index - 1 : index;
    total += count(text.slice(start, cut));
    start = cut;
    run = index - cut + 1;
    if (tail > 0) tail = index - cut + 1;
  }
  if (start === text.length) return total;
  return total + count(start === 0 ? text : text.slice(start));
}
