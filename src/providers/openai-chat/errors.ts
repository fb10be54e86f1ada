/** Chat Completions error handling: OpenAI's shared error bodies and rules (`providers/openai/errors.ts`). */
export { convertErrorBody, errorRules, parseErrorBody, parseRetryHint } from '../openai/errors.ts';
