/** Vertex streams are SSE in the publisher's own protocol: the Gemini or the Anthropic stream parser. */
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { createStreamParser as createAnthropicParser } from '../anthropic/stream.ts';
import type { ProviderContext, StreamParser } from '../common/definition.ts';
import { createStreamParser as createGeminiParser } from '../gemini/stream.ts';
import { publisherOf } from './model-id.ts';

/** Creates the parser of one response stream, by the model's publisher. */
export function createStreamParser(context: ProviderContext, builder: StreamBuilder): StreamParser {
  return publisherOf(context.model) === 'anthropic'
    ? createAnthropicParser(context, builder)
    : createGeminiParser(context, builder);
}
