/** Responses error bodies: the OpenAI shape shared with Chat Completions. */
export { encodeError, errorBody } from '../openai-chat/errors.ts';
