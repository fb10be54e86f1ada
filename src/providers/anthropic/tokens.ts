/** A local, dependency-free estimate of a request's input tokens, calibrated for Claude. */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import type { DataRef, Item, Part } from '../../core/transcript.ts';
import { countWordTokens, wordCalibration } from '../common/token-estimate.ts';
import { modelProfile } from './capabilities.ts';

/**
 * Calibration (see `tokens.test.ts`): a word-and-symbol count fitted on recorded responses whose
 * output is text only — `anthropic-text` (.json and .chunks.txt), `anthropic-clear-tool-uses.1`
 * and `anthropic-json-output-format.1` (prose and JSON): every estimate lands within 8% of the
 * reported `output_tokens`. A run of letters costs 1.1 tokens per 7 letters started, a digit 1, a
 * symbol 0.55, a whitespace run 1 per 16 characters (shorter runs nothing, as fitted). Framing: 3 tokens per request and 3 per message, so that the reconstructed
 * `anthropic-text` request ("Hello, how are you?", 12 input tokens) is met exactly.
 */
export const tokenCalibration = {
  ...wordCalibration,
  requestOverhead: 3,
  messageOverhead: 3,
  /** Framing of a tool call or a tool result block. */
  toolBlockOverhead: 8,
  /** An image of unknown size: Anthropic's cap of about 1.15 megapixels (≈ width × height / 750). */
  imageTokens: 1600,
  /** A PDF page: its text plus its page image, roughly. */
  pdfPageTokens: 2000,
  /** PDF bytes per page, to guess a page count from the file size. */
  pdfBytesPerPage: 50_000,
  /** Characters per token of decoded plain-text documents (prose average). */
  documentCharactersPerToken: 3.6,
} as const;

/** The estimated tokens of a text (the shared word-and-symbol counter; `stopAbove` as it takes it). */
export const textTokens = countWordTokens;

function jsonTokens(value: unknown, stopAbove?: number): number {
  return textTokens(typeof value === 'string' ? value : JSON.stringify(value ?? null), stopAbove);
}

function byteLength(data: DataRef): number | undefined {
  if (data.type === 'base64') return Math.floor((data.data.length * 3) / 4);
  if (data.type === 'bytes') return data.bytes.byteLength;
  return undefined;
}

function fileTokens(mimeType: string, data: DataRef): number {
  if (mimeType.startsWith('image/')) return tokenCalibration.imageTokens;
  const bytes = byteLength(data);
  if (mimeType.startsWith('text/'))
    return bytes === undefined ? 0 : Math.ceil(bytes / tokenCalibration.documentCharactersPerToken);
  const pages = bytes === undefined ? 1 : Math.max(1, Math.round(bytes / tokenCalibration.pdfBytesPerPage));
  return pages * tokenCalibration.pdfPageTokens;
}

/** What is left of `stopAbove` once `counted` tokens are counted (undefined: no limit). */
const remaining = (stopAbove: number | undefined, counted: number) =>
  stopAbove === undefined ? undefined : stopAbove - counted;

/**
 * The tokens of one part. With `stopAbove`, counting may stop once past it (a number above it is
 * returned); below it, the count is the whole count.
 */
function partTokens(part: Part, countReasoning: boolean, stopAbove?: number): number {
  switch (part.type) {
    case 'text':
      return textTokens(part.text, stopAbove);
    case 'structured':
      return jsonTokens(part.value, stopAbove);
    case 'media':
      return part.modality === 'image' ? tokenCalibration.imageTokens : 0;
    case 'file':
      return fileTokens(part.mimeType, part.data);
    case 'reasoning':
      return countReasoning ? textTokens(part.text, stopAbove) + Math.ceil((part.data?.length ?? 0) / 8) : 0;
    case 'tool-call': {
      const framing = tokenCalibration.toolBlockOverhead + textTokens(part.name);
      return framing + jsonTokens(part.input, remaining(stopAbove, framing));
    }
    case 'tool-result': {
      const output = part.output;
      let content = 0;
      if (output.type === 'text') content = textTokens(output.text, stopAbove);
      else if (output.type === 'json') content = jsonTokens(output.value, stopAbove);
      else
        for (const inner of output.parts) {
          content += partTokens(inner, false, remaining(stopAbove, content));
          if (stopAbove !== undefined && content > stopAbove) break;
        }
      return tokenCalibration.toolBlockOverhead + content;
    }
    case 'custom':
      return jsonTokens(part.data, stopAbove);
  }
}

function lastAssistantIndex(transcript: readonly Item[]): number {
  for (let index = transcript.length - 1; index >= 0; index--) {
    if (transcript[index]?.kind === 'assistant') return index;
  }
  return -1;
}

/**
 * Estimates input tokens without a tokenizer: text and JSON by words and symbols (see
 * `tokenCalibration`), 3 framing tokens per request and per message, images at 1,600, PDFs at 2,000 per (guessed) page,
 * and with tools the API's tool-use system prompt (346 tokens on Claude 4 models) plus each tool's
 * definition as JSON. Thinking only counts in the last assistant turn: the API strips it elsewhere.
 */
export function estimateInputTokens(input: TokenEstimateInput): number {
  const { transcript, tools = [], stopAbove } = input;
  const lastAssistant = lastAssistantIndex(transcript);
  let total = tokenCalibration.requestOverhead;
  // Asked only whether the input is above `stopAbove` (the context-window check): counting stops
  // once past it, so a 32 MiB body costs what the window holds, not what the body holds.
  for (let index = 0; index < transcript.length; index++) {
    total += tokenCalibration.messageOverhead;
    for (const part of transcript[index]!.parts) {
      total += partTokens(part, index === lastAssistant, remaining(stopAbove, total));
      if (stopAbove !== undefined && total > stopAbove) return total;
    }
  }
  if (tools.length > 0) {
    total += modelProfile(input.model ?? '').toolPromptTokens;
    for (const tool of tools) {
      const definition = {
        name: tool.name,
        description: tool.description ?? '',
        input_schema: tool.inputSchema,
      };
      total += jsonTokens(definition, remaining(stopAbove, total));
      if (stopAbove !== undefined && total > stopAbove) return total;
    }
  }
  return total;
}
