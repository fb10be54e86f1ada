/** A local, network-free estimate of a Chat Completions request's input tokens. */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import type { Part } from '../../core/transcript.ts';

/** Characters per token of English text and code with o200k / cl100k style tokenizers. */
const charactersPerToken = 4;
/** Each message costs a few tokens of framing (role, separators). */
const tokensPerMessage = 4;
/** A high-detail image tile budget (85 base + 4 tiles × 170), OpenAI's typical 1024² image. */
const tokensPerImage = 765;
/** Rough per-page cost of a PDF (text plus page image). */
const tokensPerFile = 1_500;

function textTokens(text: string): number {
  return Math.ceil(text.length / charactersPerToken);
}

function partTokens(part: Part): number {
  switch (part.type) {
    case 'text':
      return textTokens(part.text);
    case 'reasoning':
      return textTokens(part.text);
    case 'structured':
      return textTokens(JSON.stringify(part.value));
    case 'tool-call':
      return textTokens(part.name) + textTokens(JSON.stringify(part.input)) + tokensPerMessage;
    case 'tool-result': {
      const output = part.output;
      if (output.type === 'text') return textTokens(output.text) + tokensPerMessage;
      if (output.type === 'json') return textTokens(JSON.stringify(output.value)) + tokensPerMessage;
      return output.parts.reduce((sum, inner) => sum + partTokens(inner), tokensPerMessage);
    }
    case 'media':
      return part.modality === 'image' ? tokensPerImage : 0;
    case 'file':
      return tokensPerFile;
    case 'custom':
      return textTokens(JSON.stringify(part.data));
  }
}

/**
 * Estimates input tokens at four characters per token, plus message framing, tool definitions
 * (name, description, schema) and flat costs for images and files. Aims for ±10% on text.
 */
export function estimateInputTokens(input: TokenEstimateInput): number {
  let total = 3;
  for (const item of input.transcript) {
    total += tokensPerMessage;
    for (const part of item.parts) total += partTokens(part);
  }
  for (const tool of input.tools ?? []) {
    total += tokensPerMessage + textTokens(tool.name) + textTokens(tool.description ?? '');
    total += textTokens(JSON.stringify(tool.inputSchema));
  }
  return total;
}
