/** Lossless JSON for a paused run's state, validated on the way back in (another process, another day). */
import { z } from 'zod';
import type { ToolResultPart } from '../core/transcript.ts';
import { parseTranscript, stringifyTranscript } from '../core/transcript-schema.ts';
import type { AgentState } from './types.ts';

const usage = z.object({
  input: z.number().nonnegative(),
  cacheRead: z.number().nonnegative(),
  cacheWrite: z.number().nonnegative(),
  output: z.number().nonnegative(),
  reasoning: z.number().nonnegative(),
  cost: z
    .object({ amount: z.number(), currency: z.string(), pricingVersion: z.string().optional() })
    .optional(),
});

const turn = z.object({
  turn: z.number().int().positive(),
  model: z.string(),
  fallbackFrom: z.string().optional(),
  finishReason: z.enum([
    'completed',
    'tool-call',
    'max-tokens',
    'stop-sequence',
    'content-filter',
    'cancelled',
    'error',
    'other',
  ]),
  usage,
  cost: z.number(),
  durationMs: z.number(),
  maxTokensRecovery: z.number().int().optional(),
});

const envelope = z.object({
  version: z.literal(1),
  transcript: z.unknown(),
  results: z.unknown(),
  pending: z.array(
    z.object({ callId: z.string().min(1), name: z.string(), input: z.record(z.string(), z.json()) }),
  ),
  turns: z.array(turn),
  usage,
  cost: z.number(),
  maxTokensRecoveries: z.number().int().nonnegative(),
  toolIds: z.array(z.tuple([z.string(), z.string(), z.string()])).optional(),
});

/** Serializes a paused run's state to JSON (bytes as base64, deterministic metadata order). */
export function stringifyAgentState(state: AgentState): string {
  const transcript: unknown = JSON.parse(stringifyTranscript(state.transcript));
  const results: unknown = JSON.parse(stringifyTranscript([{ kind: 'tool', parts: state.results }]));
  return JSON.stringify({ ...state, transcript, results: (results as [{ parts: unknown }])[0].parts });
}

/** Parses and validates a state written by {@link stringifyAgentState}; throws a TypeError naming each problem. */
export function parseAgentState(text: string): AgentState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`agent state: invalid JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = envelope.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new TypeError(`agent state: ${issues.join('; ')}`);
  }
  const transcript = parseTranscript(parsed.data.transcript);
  if (!transcript.ok) throw new TypeError(`agent state: transcript ${issueText(transcript.issues)}`);
  const results = parseTranscript([{ kind: 'tool', parts: parsed.data.results }]);
  if (!results.ok) throw new TypeError(`agent state: results ${issueText(results.issues)}`);
  return {
    ...parsed.data,
    transcript: transcript.value,
    results: results.value[0]!.parts as ToolResultPart[],
  } as AgentState;
}

function issueText(issues: Array<{ path: string; message: string }>): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}

/**
 * Validates a state object handed to `agent.resume` (the object form of {@link parseAgentState});
 * returns a copy or the problems by path. Never throws.
 */
export function checkAgentState(
  value: unknown,
): { ok: true; value: AgentState } | { ok: false; issues: Array<{ path: string; message: string }> } {
  try {
    const parsed = envelope.safeParse(value);
    if (!parsed.success) {
      return {
        ok: false,
        issues: parsed.error.issues.map((issue) => ({
          path: issue.path.join('.') || '(root)',
          message: issue.message,
        })),
      };
    }
    const transcript = parseTranscript(parsed.data.transcript);
    if (!transcript.ok)
      return {
        ok: false,
        issues: transcript.issues.map((issue) => ({ ...issue, path: `transcript${issue.path}` })),
      };
    const results = parseTranscript([{ kind: 'tool', parts: parsed.data.results }]);
    if (!results.ok)
      return {
        ok: false,
        issues: results.issues.map((issue) => ({ ...issue, path: `results ${issue.path}` })),
      };
    return {
      ok: true,
      value: { ...parsed.data, transcript: transcript.value, results: results.value[0]!.parts } as AgentState,
    };
  } catch (error) {
    return {
      ok: false,
      issues: [{ path: '(root)', message: `unreadable value: ${(error as Error)?.name ?? typeof error}` }],
    };
  }
}
