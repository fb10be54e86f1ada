/** The OpenAI Chat Completions codec: request decoding, response/stream/error encoding. */
import type { ProtocolCodec } from '../types.ts';
import { encodeError } from './errors.ts';
import { decodeRequest } from './request.ts';
import { createStreamEncoder, encodeResponse } from './response.ts';

/** OpenAI Chat Completions (`POST /v1/chat/completions`). */
export const openaiChatCodec: ProtocolCodec = {
  name: 'openai-chat',
  decodeRequest: (body) => decodeRequest(body),
  encodeResponse,
  createStreamEncoder,
  encodeError,
  namedEvents: false,
  conversationField: 'messages',
  requestFields: {
    toolChoice: 'tool_choice',
    maxOutputTokens: 'max_completion_tokens',
    reasoning: 'reasoning_effort',
    stopSequences: 'stop',
  },
};
