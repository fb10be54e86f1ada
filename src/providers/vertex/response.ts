/** Vertex response body → canonical response: by the model's publisher, the Gemini or the Anthropic codec. */
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { parseResponse as parseAnthropicResponse } from '../anthropic/response.ts';
import type { ProviderContext } from '../common/definition.ts';
import { parseResponse as parseGeminiResponse } from '../gemini/response.ts';
import { publisherOf } from './model-id.ts';

export { convertUsage, mapFinishReason } from '../gemini/response.ts';

/** A whole response body into builder calls. */
export function parseResponse(body: unknown, context: ProviderContext, builder: StreamBuilder): void {
  if (publisherOf(context.model) === 'anthropic') parseAnthropicResponse(body, context, builder);
  else parseGeminiResponse(body, context, builder);
}
