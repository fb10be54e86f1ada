/** Chat Completions error handling: OpenAI's shared error bodies and rules (`providers/openai/errors.ts`). */
export { convertWireError, errorRules, parseErrorBody, parseRetryHint } from '../openai/errors.ts';
