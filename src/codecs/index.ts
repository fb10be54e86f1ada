/** The wire-protocol codecs, one per protocol, shared by the gateway and the emulator. */
import { anthropicMessagesCodec } from './anthropic-messages/index.ts';
import { geminiCodec } from './gemini/index.ts';
import { openaiChatCodec } from './openai-chat/index.ts';
import { openaiResponsesCodec } from './openai-responses/index.ts';
import { switchyardCodec } from './switchyard/index.ts';
import type { InboundProtocol, ProtocolCodec, ProtocolName } from './types.ts';

/** Every codec by protocol name. */
export const codecs: { readonly [Name in ProtocolName]: ProtocolCodec } = {
  'anthropic-messages': anthropicMessagesCodec,
  'openai-chat': openaiChatCodec,
  'openai-responses': openaiResponsesCodec,
  gemini: geminiCodec,
};

/** What the gateway decodes inbound: every provider protocol's codec, and Switchyard's own. */
export const inboundCodecs: { readonly [Name in InboundProtocol]: ProtocolCodec } = {
  ...codecs,
  switchyard: switchyardCodec,
};

export { createFrame, serializeFrame } from './frames.ts';
export { RequestFieldError } from './fields.ts';
export { taggedOpaque, verbatimOpaque } from './opaque.ts';
export type {
  DecodeContext,
  DecodedRequest,
  EncodeContext,
  EncodedError,
  InboundProtocol,
  OpaqueCodec,
  ProtocolCodec,
  ProtocolName,
  StreamEncoder,
  WireError,
  WireFrame,
} from './types.ts';
