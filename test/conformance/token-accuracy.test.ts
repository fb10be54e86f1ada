/**
 * Token estimates against known counts, per language and model family (printed as a table; the
 * README shows the same). Known counts: OpenAI's exact encodings for the committed corpus
 * (test/fixtures/token-corpus), and for Anthropic and Gemini, recorded responses whose output text
 * and reported token count are both on record. No offline truth exists for Anthropic or Gemini on
 * code, Chinese or Japanese: those cells say so instead of inventing a number.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { userText } from '../../src/core/transcript.ts';
import { textTokens as anthropicTextTokens } from '../../src/providers/anthropic/tokens.ts';
import { estimateInputTokens as estimateGemini } from '../../src/providers/gemini/tokens.ts';
import { estimateInputTokens as estimateOpenAI } from '../../src/providers/openai-chat/tokens.ts';
import { tokenCounter } from '../../src/providers/openai/tokenizer.ts';
import { recordedDir, repoRoot } from '../support/fixtures.ts';

const languages = ['english', 'code', 'json', 'chinese', 'japanese'] as const;
type Language = (typeof languages)[number];
const corpusDir = join(repoRoot, 'test/fixtures/token-corpus');
const corpus = Object.fromEntries(
  languages.map((language) => [language, readFileSync(join(corpusDir, `${language}.txt`), 'utf8')]),
) as Record<Language, string>;
const known = JSON.parse(readFileSync(join(corpusDir, 'counts.json'), 'utf8')) as Record<
  'o200k_base' | 'cl100k_base',
  Record<Language, number>
>;

/** Chat framing the OpenAI estimate adds to one user message: 3 per request + 3 per message + 1 role. */
const openAIFraming = 7;
/** Gemini's framing of one user turn. */
const geminiFraming = 4;

interface Row {
  family: string;
  language: Language;
  source: string;
  known: number;
  estimate: number;
}
const rows: Row[] = [];

function error(row: Row): number {
  return (row.estimate - row.known) / row.known;
}

function recordedAnthropic(file: string): { text: string; tokens: number } {
  const body = JSON.parse(readFileSync(join(recordedDir, 'anthropic', file), 'utf8')) as {
    content: Array<{ type: string; text?: string }>;
    usage: { output_tokens: number };
  };
  const text = body.content.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
  return { text, tokens: body.usage.output_tokens };
}

function recordedGemini(file: string): { text: string; tokens: number } {
  const body = JSON.parse(readFileSync(join(recordedDir, 'google', file), 'utf8')) as {
    candidates: Array<{ content: { parts: Array<{ text?: string; thought?: boolean }> } }>;
    usageMetadata: { candidatesTokenCount: number };
  };
  const parts = body.candidates[0]?.content.parts ?? [];
  const text = parts.map((part) => (part.thought === true ? '' : (part.text ?? ''))).join('');
  return { text, tokens: body.usageMetadata.candidatesTokenCount };
}

afterAll(() => {
  const lines = [
    'family          | language | known from                                   | known | estimate | error',
  ];
  for (const family of ['openai (o200k)', 'openai (cl100k)', 'anthropic', 'gemini']) {
    for (const language of languages) {
      const found = rows.filter((row) => row.family === family && row.language === language);
      if (found.length === 0) {
        lines.push(
          `${family.padEnd(15)} | ${language.padEnd(8)} | no offline truth (no recorded count)         |     — |        — | —`,
        );
      }
      for (const row of found) {
        const percent = `${error(row) >= 0 ? '+' : ''}${(error(row) * 100).toFixed(1)}%`;
        lines.push(
          `${family.padEnd(15)} | ${language.padEnd(8)} | ${row.source.padEnd(44)} | ${String(row.known).padStart(5)} | ${String(row.estimate).padStart(8)} | ${percent}`,
        );
      }
    }
  }
  console.log(`token estimate accuracy\n${lines.join('\n')}`);
});

describe('token estimates within ±10% of known counts', () => {
  it.each(languages)('OpenAI GPT-4o (o200k_base) counts %s exactly', (language) => {
    const count = tokenCounter('o200k_base');
    expect(count?.(corpus[language])).toBe(known.o200k_base[language]);
    const estimate = estimateOpenAI({ model: 'openai:gpt-4o', transcript: [userText(corpus[language])] });
    const row = {
      family: 'openai (o200k)',
      language,
      source: 'corpus, o200k_base',
      known: known.o200k_base[language],
      estimate: estimate - openAIFraming,
    };
    rows.push(row);
    expect(Math.abs(error(row))).toBeLessThanOrEqual(0.1);
    expect(row.estimate).toBe(row.known);
  });

  it.each(languages)('OpenAI GPT-4 (cl100k_base) counts %s exactly', (language) => {
    const estimate = estimateOpenAI({
      model: 'openai:gpt-4-turbo',
      transcript: [userText(corpus[language])],
    });
    const row = {
      family: 'openai (cl100k)',
      language,
      source: 'corpus, cl100k_base',
      known: known.cl100k_base[language],
      estimate: estimate - openAIFraming,
    };
    rows.push(row);
    expect(row.estimate).toBe(row.known);
  });

  it('OpenAI estimates cost the documented chat framing: 3 per request, 3 + 1 per message', () => {
    const transcript = [userText('Hello, how are you?'), userText('Fine.')];
    const text =
      (tokenCounter('o200k_base')?.('Hello, how are you?') ?? 0) +
      (tokenCounter('o200k_base')?.('Fine.') ?? 0);
    expect(estimateOpenAI({ model: 'gpt-4o-mini', transcript })).toBe(3 + 2 * 4 + text);
  });

  it.each([
    ['english', 'anthropic-text.json'],
    ['english', 'anthropic-clear-tool-uses.1.json'],
    ['json', 'anthropic-json-output-format.1.json'],
  ] as const)('Anthropic estimates %s within 10%% of recorded %s', (language, file) => {
    const { text, tokens } = recordedAnthropic(file);
    const row = {
      family: 'anthropic',
      language,
      source: `recorded ${file}`,
      known: tokens,
      estimate: anthropicTextTokens(text),
    };
    rows.push(row);
    expect(Math.abs(error(row))).toBeLessThanOrEqual(0.1);
  });

  it.each([
    ['english', 'google-text.json'],
    ['english', 'google-reasoning.json'],
  ] as const)('Gemini estimates %s within 10%% of recorded %s', (language, file) => {
    const { text, tokens } = recordedGemini(file);
    const estimate = estimateGemini({ transcript: [userText(text)] }) - geminiFraming;
    const row = { family: 'gemini', language, source: `recorded ${file}`, known: tokens, estimate };
    rows.push(row);
    expect(Math.abs(error(row))).toBeLessThanOrEqual(0.1);
  });
});
