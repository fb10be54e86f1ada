/** Lossless JSON for a paused run's state, validated on the way back in (another process, another day). */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { InvalidRequestError } from '../core/errors/invalid-request-error.ts';
import { finishReasons } from '../core/finish-reason.ts';
import type { JsonValue } from '../core/json.ts';
import type { ToolCallPart, ToolResultPart } from '../core/transcript.ts';
import { parseTranscript, stringifyTranscript } from '../core/transcript-schema.ts';
import { amountSchema, usageSchema } from '../core/usage-schema.ts';
import { toolCallsOf } from './transcript-tools.ts';
import type { AgentState, ApprovalDecision } from './types.ts';
import { parseJson } from '../core/json-text.ts';
import { findShapeProblem, maxNestingDepth } from '../core/value-shape.ts';

/** A count, a cost or a duration in a state: finite and never negative (a negative cost would lift a budget). */
const amount = amountSchema;
const usage = usageSchema;

const turn = z.object({
  turn: z.number().int().positive(),
  model: z.string(),
  fallbackFrom: z.string().optional(),
  finishReason: z.enum(finishReasons),
  usage,
  cost: amount,
  durationMs: amount,
  maxTokensRecovery: z.number().int().nonnegative().optional(),
});

const envelope = z.object({
  version: z.literal(1),
  transcript: z.unknown(),
  results: z.unknown(),
  pending: z.array(
    z.object({
      callId: z.string().min(1),
      name: z.string(),
      input: z.record(z.string(), z.json()),
      digest: z.string().optional(),
    }),
  ),
  turns: z.array(turn),
  usage,
  cost: amount,
  maxTokensRecoveries: z.number().int().nonnegative(),
  toolIds: z.array(z.tuple([z.string(), z.string(), z.string()])).optional(),
});

/**
 * The nesting a state may have: a transcript's own limit plus the levels the state puts above it
 * (`transcript` → item → `parts` → part). Checked before zod, whose recursion would otherwise end
 * in a raw `RangeError` (stack overflow) on a small but deep state.
 */
const maxStateDepth = maxNestingDepth + 8;

/** The first cycle, over-deep nesting or `__proto__` key in a state, as an issue; else undefined. */
function shapeIssue(value: unknown): { path: string; message: string } | undefined {
  const problem = findShapeProblem(value, maxStateDepth);
  if (problem === undefined) return undefined;
  const path = problem.path.slice(0, 12).join('.') + (problem.path.length > 12 ? '.…' : '');
  return { path: path || '(root)', message: problem.message };
}

/** Serializes a paused run's state to JSON (bytes as base64, deterministic metadata order). */
export function stringifyAgentState(state: AgentState): string {
  const transcript: unknown = parseJson(stringifyTranscript(state.transcript));
  const results: unknown = parseJson(stringifyTranscript([{ kind: 'tool', parts: state.results }]));
  return JSON.stringify({ ...state, transcript, results: (results as [{ parts: unknown }])[0].parts });
}

/** Parses and validates a state written by {@link stringifyAgentState}; throws a TypeError naming each problem. */
export function parseAgentState(text: string): AgentState {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (error) {
    throw new TypeError(`agent state: invalid JSON: ${(error as Error).message}`, { cause: error });
  }
  const shape = shapeIssue(json);
  if (shape !== undefined) throw new TypeError(`agent state: ${shape.path}: ${shape.message}`);
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
    const shape = shapeIssue(value);
    if (shape !== undefined) return { ok: false, issues: [shape] };
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

/** The named error of a paused state that does not verify (tampered, or not from a pause). */
export class AgentStateError extends InvalidRequestError {
  override name = 'AgentStateError';
  constructor(issues: Array<{ path: string; message: string }>) {
    super({
      message: `agent.resume: the paused state does not verify: ${issues
        .slice(0, 10)
        .map((issue) => `${issue.path}: ${issue.message}`)
        .join('; ')}`,
      providerCode: 'agent_state_invalid',
      cause: { issues },
    });
  }
}

/**
 * The digest an approval is bound to: SHA-256 over the call id, the tool name and the input in a
 * canonical JSON form (object keys sorted). Shown with each pending approval (`digest`); a decision
 * may carry it back (`{ approved, digest }`) to prove which call it approves.
 */
export function approvalDigest(callId: string, name: string, input: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([callId, name, canonical(input as JsonValue)]))
    .digest('hex');
}

function canonical(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, JsonValue> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = canonical(value[key] as JsonValue);
  return sorted;
}

/**
 * Verifies a paused state against itself and the decisions: the last assistant item's tool calls
 * are exactly the recorded results plus the pending calls (nothing injected, nothing twice), each
 * pending call's name and input are those of the transcript call (its digest matches, when the
 * state carries one), and each decision names a pending call (and its digest, when it carries one).
 * Returns the problems; none means resume may run exactly the pending calls.
 */
export function verifyAgentState(
  state: AgentState,
  decisions: Record<string, ApprovalDecision | { approved: boolean; reason?: string; digest?: string }>,
): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  const last = [...state.transcript].reverse().find((item) => item.kind === 'assistant');
  if (last === undefined)
    return [{ path: 'transcript', message: 'no assistant item holds the pending calls' }];
  if (state.transcript.at(-1) !== last)
    issues.push({ path: 'transcript', message: 'items follow the paused assistant item' });
  const calls = new Map<string, ToolCallPart>();
  for (const call of toolCallsOf(last.parts)) {
    if (calls.has(call.id)) issues.push({ path: 'transcript', message: `call ${call.id} appears twice` });
    calls.set(call.id, call);
  }
  const accounted = new Set<string>();
  state.results.forEach((result, index) => {
    if (!calls.has(result.callId))
      issues.push({ path: `results.${index}`, message: `answers no call of the paused turn` });
    else if (accounted.has(result.callId))
      issues.push({ path: `results.${index}`, message: 'a second result for one call' });
    accounted.add(result.callId);
  });
  state.pending.forEach((pending, index) => {
    const call = calls.get(pending.callId);
    const where = `pending.${index}`;
    if (call === undefined) return issues.push({ path: where, message: 'names no call of the paused turn' });
    if (accounted.has(pending.callId))
      return issues.push({ path: where, message: 'the call already has a result' });
    accounted.add(pending.callId);
    const shown = approvalDigest(pending.callId, pending.name, pending.input);
    if (approvalDigest(call.id, call.name, call.input) !== shown)
      issues.push({ path: where, message: 'name or input differ from the call in the transcript' });
    if (pending.digest !== undefined && pending.digest !== shown)
      issues.push({ path: `${where}.digest`, message: 'does not match the name and input' });
    const decision = decisions[pending.callId];
    const given = typeof decision === 'object' ? (decision as { digest?: string }).digest : undefined;
    if (given !== undefined && given !== shown)
      issues.push({ path: `decisions.${pending.callId}.digest`, message: 'approves another name or input' });
    return undefined;
  });
  for (const id of calls.keys()) {
    if (!accounted.has(id))
      issues.push({ path: 'transcript', message: `call ${id} is neither answered nor pending` });
  }
  for (const id of Object.keys(decisions)) {
    if (!state.pending.some((pending) => pending.callId === id))
      issues.push({ path: `decisions.${id}`, message: 'decides on no pending call' });
  }
  return issues;
}
