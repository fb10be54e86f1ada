/**
 * Checks of what a caller hands the agent: `createAgent` options (at creation, naming each bad
 * option), and each run's input and options (a bad one ends the run with outcome `error`, never a
 * synchronous throw). Limits are checked here once, so the loop can trust them.
 */
import { z } from 'zod';
import type { InvalidRequestError } from '../core/errors/invalid-request-error.ts';
import { checkOptions, invalidInput } from '../core/input-check.ts';
import type { Transcript } from '../core/transcript.ts';
import { parseTranscript } from '../core/transcript-schema.ts';
import { CancellationController } from './cancellation.ts';
import type { AgentOptions, RunOptions } from './options.ts';
import { AgentStateError, checkAgentState, verifyAgentState } from './state.ts';
import type { AgentState } from './types.ts';
import { isJsonObject } from '../core/json.ts';
import { maxTimerMs } from '../core/timer-limit.ts';

const method = (value: unknown, name: string) => isJsonObject(value) && typeof value[name] === 'function';
const fn = (message: string) =>
  z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', message);

/** The longest delay `setTimeout` honours; a longer one fires at once (Node clamps it to 1 ms). */

const positiveInteger = (name: string) =>
  z
    .number({ error: `${name} must be a positive integer` })
    .int(`${name} must be a positive integer`)
    .positive(`${name} must be a positive integer`)
    .max(Number.MAX_SAFE_INTEGER, `${name} must be a positive integer`);

/** A timeout in ms: positive, finite and within what a timer can wait (about 24.8 days). */
export const timeoutMsSchema = (name: string) =>
  z
    .number({ error: `${name} must be a number of milliseconds` })
    .positive(`${name} must be positive`)
    .max(maxTimerMs, `${name} must be at most ${maxTimerMs} ms (a longer timer fires at once)`);

const client = z.custom<object>(
  (value) => method(value, 'stream') || typeof value === 'function',
  'client must have stream(request, options), or be a function returning such a client per model',
);
const modelName = z
  .string({ error: 'model must be a model name, { model, client } or a function choosing one per turn' })
  .refine((name) => name.trim() !== '', 'model must be a non-empty string');
const modelChoice = z.union([modelName, z.looseObject({ model: modelName, client: client.optional() })], {
  error: 'model must be a model name, { model, client } or a function choosing one per turn',
});
const agentTool = z.custom<object>(
  (value) =>
    isJsonObject(value) &&
    typeof value.name === 'string' &&
    value.name !== '' &&
    isJsonObject(value.inputSchema) &&
    typeof value.validate === 'function' &&
    typeof value.execute === 'function',
  'an agent tool needs name, inputSchema, validate and execute: build it with tool({ name, input, execute })',
);
/** Names the second tool of a name (the loop finds tools by name). */
function noDuplicateNames(tools: readonly object[], context: z.RefinementCtx): void {
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    const name = (tool as { name: string }).name;
    if (seen.has(name))
      context.addIssue({ code: 'custom', path: [index, 'name'], message: `two tools are named ${name}` });
    seen.add(name);
  });
}

/** `createAgent` options; unknown keys rejected. */
const agentOptionsSchema = z.strictObject({
  name: z.string().min(1).optional(),
  client: client.optional(),
  model: z.union([modelChoice, fn('')], {
    error: 'model must be a model name, { model, client } or a function choosing one per turn',
  }),
  instructions: z.string().optional(),
  tools: z.array(agentTool, { error: 'tools must be an array' }).superRefine(noDuplicateNames).optional(),
  maxTurns: positiveInteger('maxTurns').optional(),
  maxOutputTokens: positiveInteger('maxOutputTokens').optional(),
  stopWhen: fn('stopWhen must be a function').optional(),
  budget: z
    .strictObject({
      maxCost: z
        .number({ error: 'maxCost must be a finite number ≥ 0' })
        .nonnegative('maxCost must be a finite number ≥ 0'),
    })
    .optional(),
  cost: fn('cost must be a function (usage, model) => number').optional(),
  fallback: z.strictObject({ model: modelChoice, when: fn('when must be a function').optional() }).optional(),
  maxTokensRecoveries: z
    .number({ error: 'maxTokensRecoveries must be an integer ≥ 0' })
    .int('maxTokensRecoveries must be an integer ≥ 0')
    .nonnegative('maxTokensRecoveries must be an integer ≥ 0')
    .optional(),
  recoveryMessage: z.string().min(1).optional(),
  toolConcurrency: positiveInteger('toolConcurrency').optional(),
  toolTimeoutMs: timeoutMsSchema('toolTimeoutMs').optional(),
  // Request fields are checked per call by the client (the adapter's or the front door's validation).
  request: z
    .custom<object>((value) => isJsonObject(value), 'request must be an object of request fields')
    .optional(),
  compaction: z
    .looseObject({
      strategies: z.array(
        z.custom<object>((value) => isJsonObject(value), 'a compaction strategy must be an object'),
      ),
      contextWindow: positiveInteger('contextWindow'),
      threshold: z.number().gt(0).lte(1).optional(),
      estimateTokens: fn('estimateTokens must be a function').optional(),
    })
    .optional(),
  observers: z
    .array(fn('an observer must be a function'), { error: 'observers must be an array' })
    .optional(),
  logger: z
    .custom<object>((value) => method(value, 'warn'), 'logger must have warn(message, fields)')
    .optional(),
  tracer: z.custom<object>((value) => method(value, 'startSpan'), 'tracer must have startSpan()').optional(),
});

/**
 * Validates `createAgent` options; throws an `InvalidRequestError` (code `invalid_options`) naming
 * every bad option: `maxTurns: 0`, NaN or Infinity, a negative or NaN budget, a timeout a timer
 * cannot wait, duplicate tool names, a tool without `execute`…
 */
export function checkAgentOptions(options: unknown): AgentOptions {
  if (options === undefined) {
    throw invalidInput(
      'createAgent',
      [{ path: 'options', message: 'options { model, … } are required' }],
      'invalid_options',
    );
  }
  return checkOptions(agentOptionsSchema, options, 'createAgent', 'options') as AgentOptions;
}

const runOptionsSchema = z.strictObject({
  cancellation: z
    .instanceof(CancellationController, { error: 'cancellation must be a CancellationController' })
    .optional(),
  signal: z
    .custom<AbortSignal>((value) => value instanceof AbortSignal, 'signal must be an AbortSignal')
    .optional(),
  session: z
    .custom<object>(
      (value) => isJsonObject(value) && typeof value.id === 'string' && value.state instanceof Map,
      'session must come from createSession()',
    )
    .optional(),
  continues: z
    .looseObject(
      {
        transcript: z.array(z.unknown(), {
          error: 'continues.transcript must be a transcript (an array of items)',
        }),
        toolIds: z
          .array(z.tuple([z.string(), z.string(), z.string()]), {
            error: 'continues.toolIds must be a tool-id map (AgentResult.toolIds)',
          })
          .optional(),
      },
      { error: "continues must be a previous run's result ({ transcript, toolIds })" },
    )
    .optional(),
});

/** A run's input made into its starting transcript (a copy), or the error that ends the run. */
export function prepareRun(
  input: unknown,
  options: unknown,
): { ok: true; transcript: Transcript; options: RunOptions } | { ok: false; error: InvalidRequestError } {
  let runOptions: RunOptions;
  try {
    runOptions = checkOptions(runOptionsSchema, options ?? undefined, 'agent.run', 'options') as RunOptions;
  } catch (error) {
    return { ok: false, error: error as InvalidRequestError };
  }
  const earlier = runOptions.continues?.transcript;
  if (typeof input === 'string') {
    const prompt: Transcript = [{ kind: 'user', parts: [{ type: 'text', text: input }] }];
    if (earlier === undefined) return { ok: true, transcript: prompt, options: runOptions };
    input = [...earlier, ...prompt];
  } else if (earlier !== undefined && Array.isArray(input)) input = [...earlier, ...(input as unknown[])];
  if (!Array.isArray(input)) {
    const issue = {
      path: 'input',
      message: 'a run starts from a prompt (string) or a transcript (array of items)',
    };
    return { ok: false, error: invalidInput('agent.run', [issue]) };
  }
  // The validated copy is the run's own transcript: the caller's is never mutated or read again.
  const parsed = parseTranscript(input);
  if (!parsed.ok) {
    const issues = parsed.issues.map((issue) => ({ ...issue, path: inputPath(issue.path) }));
    return { ok: false, error: invalidInput('agent.run', issues) };
  }
  return { ok: true, transcript: parsed.value, options: runOptions };
}

/** `[2].parts[0]` → `input[2].parts[0]`; the root → `input`. */
function inputPath(path: string): string {
  if (path === '(root)') return 'input';
  return path.startsWith('[') ? `input${path}` : `input.${path}`;
}

const decisionSchema = z.union(
  [
    z.boolean(),
    z.strictObject({ approved: z.boolean(), reason: z.string().optional(), digest: z.string().optional() }),
  ],
  { error: 'a decision is true, false or { approved, reason? }' },
);

/**
 * `agent.resume(state, decisions, options)` checked: the state (as `parseAgentState` would), a
 * decision for every pending call, the run options. The state is copied, never mutated.
 */
export function prepareResume(
  saved: unknown,
  decisions: unknown,
  options: unknown,
): { ok: true; saved: AgentState; options: RunOptions } | { ok: false; error: InvalidRequestError } {
  const where = 'agent.resume';
  const state = checkAgentState(saved);
  if (!state.ok) {
    return {
      ok: false,
      error: invalidInput(
        where,
        state.issues.map((issue) => ({ ...issue, path: `state.${issue.path}` })),
      ),
    };
  }
  const decided = z.record(z.string(), decisionSchema).safeParse(decisions);
  if (!decided.success) {
    const issues = decided.error.issues.map((issue) => ({
      path: `decisions.${issue.path.join('.')}`.replace(/\.$/, ''),
      message: issue.message,
    }));
    return { ok: false, error: invalidInput(where, issues) };
  }
  const missing = state.value.pending
    .filter((pending) => !Object.hasOwn(decided.data, pending.callId))
    .map((pending) => ({
      path: `decisions.${pending.callId}`,
      message: `no decision for call ${pending.callId}`,
    }));
  if (missing.length > 0) return { ok: false, error: invalidInput(where, missing) };
  const unverified = verifyAgentState(state.value, decided.data);
  if (unverified.length > 0) return { ok: false, error: new AgentStateError(unverified) };
  const prepared = prepareRun('', options);
  if (!prepared.ok) return prepared;
  return { ok: true, saved: state.value, options: prepared.options };
}
