/** The Gemini codec: request decoding, response/stream/error encoding. */
import { verbatimOpaque } from '../opaque.ts';
import type { ProtocolCodec } from '../types.ts';
import { encodeError } from './errors.ts';
import { decodeRequest } from './request.ts';
import { createStreamEncoder, encodeResponse } from './response.ts';

/** Gemini (`POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent`). */
export const geminiCodec: ProtocolCodec = {
  name: 'gemini',
  decodeRequest: (body, context = {}) => decodeRequest(body, context, context.opaque ?? verbatimOpaque),
  encodeResponse,
  createStreamEncoder,
  encodeError,
  namedEvents: false,
  conversationField: 'contents',
  requestFields: {
    toolChoice: 'toolConfig',
    maxOutputTokens: 'generationConfig.maxOutputTokens',
    reasoning: 'generationConfig.thinkingConfig',
    stopSequences: 'generationConfig.stopSequences',
  },
  nativeProvider: { type: 'gemini', provider: 'gemini' },
};
