/** Realistic provider ids for the emulator: the production codecs' generators (src/codecs/ids.ts). */
export {
  createAnthropicMessageId,
  createAnthropicRequestId,
  createAnthropicToolId,
  createChatCompletionId,
  createGeminiResponseId,
  createOpenaiCallId,
  createResponsesId,
  createSignature,
  randomHex,
  randomToken,
  unixSeconds,
} from '../../codecs/ids.ts';
