/** Vertex error bodies: Google's envelope (auth, quota, Gemini) and Anthropic's (Claude's own errors). */
import type { ErrorBody, ErrorRule } from '../../core/errors/status-map.ts';
import { parseErrorText } from '../common/errors.ts';
import {
  convertErrorBody as convertAnthropicError,
  errorRules as anthropicRules,
} from '../anthropic/errors.ts';
import { convertErrorBody as convertGoogleError, errorRules as googleRules } from '../gemini/errors.ts';

/** Reads either envelope; a body that is not JSON becomes a trimmed message; empty yields nothing. */
export function parseErrorBody(text: string): ErrorBody {
  return parseErrorText(text, convertErrorBody);
}

/** Anthropic's `{type:'error', error:{type, message}}`, else Google's `{error:{code, message, status}}`. */
export function convertErrorBody(value: unknown): ErrorBody | undefined {
  const anthropic = (value as { type?: unknown } | null)?.type === 'error';
  return anthropic ? convertAnthropicError(value) : convertGoogleError(value);
}

/** Both families' rules: their codes do not overlap (`RESOURCE_EXHAUSTED` vs `rate_limit_error`). */
export const errorRules: readonly ErrorRule[] = [...googleRules, ...anthropicRules];
