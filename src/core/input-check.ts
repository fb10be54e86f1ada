/**
 * One way to turn invalid caller input into a classified error: every bad path listed in an
 * `InvalidRequestError`, never a `TypeError` from deep inside. Used by the front door, the agent
 * and `tool()` for their options, and by `stringifyTranscript`.
 */
import type { z } from 'zod';
import { InvalidRequestError } from './errors/invalid-request-error.ts';
import { formatPath, type ValidationIssue } from './transcript-schema.ts';

/** Issues listed in one error message; the rest are counted. */
const maxListedIssues = 20;
/** A caller's value quoted in a message is cut to this many characters. */
const maxQuotedLength = 120;

/** `path: message; …` for at most 20 issues, then a count of the rest. */
export function formatIssueList(issues: readonly ValidationIssue[]): string {
  const listed = issues.slice(0, maxListedIssues).map((issue) => `${issue.path}: ${issue.message}`);
  if (issues.length > maxListedIssues) listed.push(`… and ${issues.length - maxListedIssues} more`);
  return listed.join('; ');
}

/** The `InvalidRequestError` for `issues` (`where` names the entry point, e.g. `createAgent options`). */
export function invalidInput(
  where: string,
  issues: readonly ValidationIssue[],
  providerCode = 'invalid_request_shape',
): InvalidRequestError {
  return new InvalidRequestError({
    message: `${where}: ${formatIssueList(issues)}`,
    providerCode,
    cause: { issues },
  });
}

/**
 * Validates creation-time options against a zod schema; throws an `InvalidRequestError` (code
 * `invalid_options`) naming every bad option, so a mistyped value fails at creation rather than as a
 * late `TypeError`. `undefined` counts as no options; `prefix` starts every path (`options.`).
 */
export function checkOptions<Value>(
  schema: z.ZodType<Value>,
  input: unknown,
  where: string,
  prefix: string,
): Value {
  // No deep shape walk here: options hold loggers, stores and functions whose insides are not ours.
  let issues: ValidationIssue[];
  try {
    const result = schema.safeParse(input === undefined ? {} : input);
    // The caller's own object is kept (zod's copy would snapshot `env` and drop identities).
    if (result.success) return (input === undefined ? result.data : input) as Value;
    issues = result.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
  } catch (error) {
    issues = [{ path: '(root)', message: `unreadable value: ${(error as Error)?.name ?? typeof error}` }];
  }
  const named = issues.map((issue) => ({
    path: issue.path === '(root)' ? prefix : `${prefix}.${issue.path}`.replace('.[', '['),
    message: issue.message,
  }));
  throw invalidInput(where, named, 'invalid_options');
}

/** A caller's string quoted for an error message: JSON-escaped (no control characters) and cut. */
export function quoteInput(value: string): string {
  const cut = value.length > maxQuotedLength ? `${value.slice(0, maxQuotedLength)}…` : value;
  return JSON.stringify(cut) + (value.length > maxQuotedLength ? ` (${value.length} characters)` : '');
}
