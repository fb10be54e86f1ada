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
      const module = load(`gpt-tokenizer/encoding/${encoding}`) as { countTokens(text: string): number };
      counter = (text: string) => (text === '' ? 0 : module.countTokens(text));
    } catch {
      counter = null;
    }
    counters.set(encoding, counter);
  }
  return counter ?? undefined;
}
