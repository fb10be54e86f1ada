/** Vertex streams are SSE in the publisher's own protocol: the Gemini, Anthropic or Chat Completions stream parser. */
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { createStreamParser as createAnthropicParser } from '../anthropic/stream.ts';
import type { ProviderContext, StreamParser } from '../common/definition.ts';
import { createStreamParser as createGeminiParser } from '../gemini/stream.ts';
import * as chat from './chat-completions.ts';
import { codecContext } from './model-id.ts';
import { resolveModel } from './publishers.ts';

/** Creates the parser of one response stream, by the model's publisher. */
export function createStreamParser(context: ProviderContext, builder: StreamBuilder): StreamParser {
  const model = resolveModel(context.model, context.provider);
  const { protocol } = model.publisher;
  if (protocol === 'openai-chat') return chat.createStreamParser(context, builder, model);
  return protocol === 'anthropic-messages'
    ? createAnthropicParser(codecContext(context, model.name), builder)
    : createGeminiParser(codecContext(context, model.name), builder);
}
