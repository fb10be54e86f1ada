/** The adapter boundary: an untrusted request and call options become typed values or one classified error. */
import type { CallOptions } from '../../core/adapter.ts';
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import {
  validateCallOptions,
  validateRequest,
  validateTokenEstimateInput,
} from '../../core/request-schema.ts';
import type { TokenEstimateInput } from '../../core/adapter.ts';
import type { ValidationIssue } from '../../core/transcript-schema.ts';

/** Issues listed in one error message; the rest are counted. */
const maxListedIssues = 20;

/**
 * Validates what a caller passed to `complete()` / `stream()`. Throws an `InvalidRequestError`
 * (code `invalid_request_shape`) listing every bad path, never a `TypeError`.
 */
export function validateCall(
  provider: string,
  request: unknown,
  options: unknown,
): { request: CanonicalRequest; options: CallOptions } {
  const requestResult = validateRequest(request);
  const optionsResult = validateCallOptions(options);
  const issues = [
    ...(requestResult.ok ? [] : requestResult.issues),
    ...(optionsResult.ok ? [] : optionsResult.issues),
  ];
  if (!requestResult.ok || !optionsResult.ok) {
    throw new InvalidRequestError({
      message: `${provider}: invalid request: ${formatIssues(issues)}`,
      provider,
      providerCode: 'invalid_request_shape',
      cause: { issues },
    });
  }
  return { request: requestResult.value, options: optionsResult.value };
}

function formatIssues(issues: readonly ValidationIssue[]): string {
  const listed = issues.slice(0, maxListedIssues).map((issue) => `${issue.path}: ${issue.message}`);
  if (issues.length > maxListedIssues) listed.push(`… and ${issues.length - maxListedIssues} more`);
  return listed.join('; ');
}

/** The model name to report for a request that may be invalid. */
export function reportedModel(request: unknown): string {
  const model = (request as { model?: unknown } | null | undefined)?.model;
  return typeof model === 'string' && model.trim() !== '' ? model : 'unknown';
}

/**
 * `estimateInputTokens` over untrusted input at no cost on the good path: the estimate runs first;
 * only when it throws or is not a finite number is the input validated, and a bad one throws an
 * `InvalidRequestError` (`invalid_request_shape`) listing every bad path instead of a `TypeError`
 * or a `NaN` estimate. (A synchronous function cannot report otherwise.)
 */
export function estimateChecked(
  provider: string,
  estimate: (input: TokenEstimateInput) => number,
  input: unknown,
): number {
  let tokens: number | undefined;
  let failure: unknown;
  try {
    tokens = estimate(input as TokenEstimateInput);
    if (Number.isFinite(tokens)) return tokens;
  } catch (error) {
    failure = error;
  }
  const checked = validateTokenEstimateInput(input);
  if (!checked.ok) {
    throw new InvalidRequestError({
      message: `${provider}: estimateInputTokens: invalid input: ${formatIssues(checked.issues)}`,
      provider,
      providerCode: 'invalid_request_shape',
      cause: { issues: checked.issues },
    });
  }
  if (failure !== undefined) throw failure;
  return tokens!;
}
