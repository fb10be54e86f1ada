/** The OpenAI Responses codec: request decoding, response/stream/error encoding. */
import { verbatimOpaque } from '../opaque.ts';
import type { ProtocolCodec } from '../types.ts';
import { encodeError } from './errors.ts';
import { decodeRequest } from './request.ts';
import { createStreamEncoder, encodeResponse } from './response.ts';

/** OpenAI Responses (`POST /v1/responses`). */
export const openaiResponsesCodec: ProtocolCodec = {
  name: 'openai-responses',
  decodeRequest: (body, context) => decodeRequest(body, context?.opaque ?? verbatimOpaque),
  encodeResponse,
  createStreamEncoder,
  encodeError,
  namedEvents: true,
  conversationField: 'input',
  requestFields: { toolChoice: 'tool_choice', maxOutputTokens: 'max_output_tokens', reasoning: 'reasoning' },
  nativeProvider: { type: 'openai-responses', provider: 'openai' },
};
