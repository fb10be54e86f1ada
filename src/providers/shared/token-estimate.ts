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

/** Characters of text-like content in `part` (text, reasoning, JSON), and its flat token costs. */
function measure(part: Part, rates: CharacterRates | undefined): { characters: number; tokens: number } {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { characters: part.text.length, tokens: 0 };
    case 'structured':
      return { characters: JSON.stringify(part.value).length, tokens: 0 };
    case 'custom':
      return { characters: JSON.stringify(part.data).length, tokens: 0 };
    case 'tool-call':
      return {
        characters: part.name.length + JSON.stringify(part.input).length,
        tokens: rates?.perToolPart ?? 0,
      };
    case 'tool-result': {
      const output = part.output;
      const framing = rates?.perToolPart ?? 0;
      if (output.type === 'text') return { characters: output.text.length, tokens: framing };
      if (output.type === 'json') return { characters: JSON.stringify(output.value).length, tokens: framing };
      const total = { characters: 0, tokens: framing };
      for (const inner of output.parts) {
        const next = measure(inner, rates);
        total.characters += next.characters;
        total.tokens += next.tokens;
      }
      return total;
    }
    case 'media':
      return {
        characters: 0,
        tokens: part.modality === 'image' ? (rates?.image ?? 0) : (rates?.otherMedia ?? 0),
      };
    case 'file':
      return { characters: 0, tokens: rates?.file ?? 0 };
  }
}

/** Estimates a request's input tokens: characters ÷ rate, plus framing and flat media costs. */
export function estimateByCharacters(input: TokenEstimateInput, rates: CharacterRates): number {
  let characters = 0;
  let tokens = rates.perRequest;
  for (const item of input.transcript) {
    tokens += rates.perMessage;
    for (const part of item.parts) {
      const estimate = measure(part, rates);
      characters += estimate.characters;
      tokens += estimate.tokens;
    }
  }
  for (const tool of input.tools ?? []) {
    tokens += rates.perTool;
    characters +=
      tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.inputSchema).length;
  }
  return Math.ceil(characters / rates.charactersPerToken) + tokens;
}

/** Estimated output tokens of response content (text, reasoning, tool inputs) at four characters a token. */
export function estimateOutputTokens(parts: readonly Part[]): number {
  let characters = 0;
  for (const part of parts) characters += measure(part, undefined).characters;
  return Math.ceil(characters / 4);
}
