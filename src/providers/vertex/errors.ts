/**
 * Vertex error bodies: Google's envelope (auth, quota, Gemini), Anthropic's (Claude's own errors)
 * and OpenAI's (the Chat Completions publishers: Mistral AI, the MaaS open models).
 */
import type { ErrorBody, ErrorRule } from '../../core/errors/status-map.ts';
import { parseErrorText } from '../common/errors.ts';
import {
  convertErrorBody as convertAnthropicError,
  errorRules as anthropicRules,
} from '../anthropic/errors.ts';
import { convertErrorBody as convertGoogleError, errorRules as googleRules } from '../gemini/errors.ts';
import { convertErrorBody as convertChatError, errorRules as chatRules } from '../openai-chat/errors.ts';

/** Reads any of the envelopes; a body that is not JSON becomes a trimmed message; empty yields nothing. */
export function parseErrorBody(text: string): ErrorBody {
  return parseErrorText(text, convertErrorBody);
}

/**
 * Anthropic's `{type:'error', error:{type, message}}`; else Google's `{error:{code, message,
 * status}}` when it names a status or reason; else OpenAI's `{error:{message, type, code}}` (or
 * Mistral's bare `{object:'error', message, type, code}`), which Google's reader sees as a message alone.
 */
export function convertErrorBody(value: unknown): ErrorBody | undefined {
  if ((value as { type?: unknown } | null)?.type === 'error') return convertAnthropicError(value);
  const google = convertGoogleError(value);
  if (google?.code !== undefined) return google;
  return convertChatError(value) ?? google;
}

/** The families' rules, Google's first: their codes do not overlap (`RESOURCE_EXHAUSTED`, `rate_limit_error`, `context_length_exceeded`). */
export const errorRules: readonly ErrorRule[] = [...googleRules, ...anthropicRules, ...chatRules];
