/** A local, network-free estimate of a Responses request's input tokens (the same tokenizers as Chat). */
export { estimateInputTokens } from '../openai-chat/tokens.ts';
