/** The Anthropic Messages codec: request decoding, response/stream/error encoding. */
import { verbatimOpaque } from '../opaque.ts';
import type { ProtocolCodec } from '../types.ts';
import { encodeError } from './errors.ts';
import { decodeRequest } from './request.ts';
import { createStreamEncoder, encodeResponse } from './response.ts';

/** Anthropic Messages (`POST /v1/messages`). */
export const anthropicMessagesCodec: ProtocolCodec = {
  name: 'anthropic-messages',
  decodeRequest: (body, context) => decodeRequest(body, context?.opaque ?? verbatimOpaque),
  encodeResponse,
  createStreamEncoder,
  encodeError,
  namedEvents: true,
  conversationField: 'messages',
  requestFields: {
    toolChoice: 'tool_choice',
    maxOutputTokens: 'max_tokens',
    reasoning: 'thinking',
    stopSequences: 'stop_sequences',
  },
  nativeProvider: { type: 'anthropic', provider: 'anthropic' },
};
