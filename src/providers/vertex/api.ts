/**
 * Vertex AI wire types. Vertex speaks its publishers' protocols: Google's `generateContent` for Gemini
 * (the Gemini codec's types, `../gemini/api.ts`), Anthropic's Messages for Claude (the Anthropic
 * codec's types, `../anthropic/api.ts`) and Chat Completions for Mistral AI and the MaaS open models
 * (the Chat Completions codec's, `../openai-chat/api.ts`). What is Vertex's own: the Anthropic body's
 * version field.
 */
export type { GeminiRequestBody, GeminiResponse } from '../gemini/api.ts';
export type { WireResponseMessage, WireStreamEvent } from '../anthropic/api.ts';

/** The `anthropic_version` Vertex requires in the body of `:rawPredict` / `:streamRawPredict`. */
export const vertexAnthropicVersion = 'vertex-2023-10-16';
