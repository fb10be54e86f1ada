/** Vertex response body → canonical response: by the model's publisher, the Gemini, Anthropic or Chat Completions codec. */
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { parseResponse as parseAnthropicResponse } from '../anthropic/response.ts';
import type { ProviderContext } from '../common/definition.ts';
import { parseResponse as parseGeminiResponse } from '../gemini/response.ts';
import * as chat from './chat-completions.ts';
import { codecContext } from './model-id.ts';
import { resolveModel } from './publishers.ts';

export { convertUsage, mapFinishReason } from '../gemini/response.ts';

/** A whole response body into builder calls. */
export function parseResponse(body: unknown, context: ProviderContext, builder: StreamBuilder): void {
  const model = resolveModel(context.model, context.provider);
  const { protocol } = model.publisher;
  if (protocol === 'openai-chat') chat.parseResponse(body, context, builder, model);
  else if (protocol === 'anthropic-messages')
    parseAnthropicResponse(body, codecContext(context, model.name), builder);
  else parseGeminiResponse(body, codecContext(context, model.name), builder);
}
