/** A local, network-free estimate of a request's input tokens (aims for ±10% on text). */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import type { Part } from '../../core/transcript.ts';

/** Gemini's documented cost of one image (≤384 px a side; larger images tile at the same rate). */
const imageTokens = 258;
/** A rough allowance for audio, video and documents, whose length is unknown locally. */
const otherMediaTokens = 1024;
/** Gemini tokens average about four characters of English text. */
const charactersPerToken = 4;

/** Estimates input tokens: text and JSON by characters, media by Gemini's per-item rates. */
export function estimateInputTokens(input: TokenEstimateInput): number {
  let characters = 0;
  let fixed = 0;
  for (const item of input.transcript) {
    fixed += 4; // role and turn framing
    for (const part of item.parts) {
      const estimate = estimatePart(part);
      characters += estimate.characters;
      fixed += estimate.tokens;
    }
  }
  for (const tool of input.tools ?? []) {
    characters +=
      tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.inputSchema).length;
  }
  return Math.ceil(characters / charactersPerToken) + fixed;
}

function estimatePart(part: Part): { characters: number; tokens: number } {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { characters: part.text.length, tokens: 0 };
    case 'structured':
      return { characters: JSON.stringify(part.value).length, tokens: 0 };
    case 'tool-call':
      return { characters: part.name.length + JSON.stringify(part.input).length, tokens: 0 };
    case 'tool-result': {
      const output = part.output;
      if (output.type === 'text') return { characters: output.text.length, tokens: 0 };
      if (output.type === 'json') return { characters: JSON.stringify(output.value).length, tokens: 0 };
      return output.parts
        .map(estimatePart)
        .reduce(
          (sum, next) => ({ characters: sum.characters + next.characters, tokens: sum.tokens + next.tokens }),
          { characters: 0, tokens: 0 },
        );
    }
    case 'media':
      return { characters: 0, tokens: part.modality === 'image' ? imageTokens : otherMediaTokens };
    case 'file':
      return { characters: 0, tokens: otherMediaTokens };
    case 'custom':
      return { characters: JSON.stringify(part.data).length, tokens: 0 };
  }
}
