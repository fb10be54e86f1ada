/** `createAgent`: runs and resumes the loop, exposing one event stream and `interrupt()` per run. */
import { type AdapterSession, createSession } from '../core/adapter.ts';
import { EventStream } from '../core/event-stream.ts';
import { consoleLogger, guardLogger } from '../core/logger.ts';
import { createObserverDispatch } from '../observers/dispatch.ts';
import { ToolIdMap } from '../core/tool-id-map.ts';
import type { ToolCallPart, ToolResultPart, Transcript } from '../core/transcript.ts';
import { emptyUsage } from '../core/usage.ts';
import { CancellationController } from './cancellation.ts';
import { AgentLoop, type LoopState } from './loop.ts';
import type { AgentOptions, RunOptions } from './options.ts';
import { checkAgentOptions, prepareResume, prepareRun } from './options-check.ts';
import { startTelemetry } from './telemetry.ts';
import type { AnyAgentTool } from './tool.ts';
import { errorResult, runToolCalls } from './tool-runner.ts';
import { toolCallsOf } from './transcript-tools.ts';
import type { AgentEvent, AgentResult, AgentState, ApprovalDecision, ModelClient } from './types.ts';

/** One run: iterate it for events, await `result()` for the outcome, `interrupt()` to stop it. */
export interface AgentRun extends AsyncIterable<AgentEvent> {
  result(): Promise<AgentResult>;
  /** Cancels the running model call or tools; the run ends with outcome `cancelled`. */
  interrupt(reason?: string): void;
}

/** An agent: tools, model(s) and policies, run any number of times. */
export interface Agent {
  /** Starts a run from a prompt or a transcript (which is copied, never mutated). */
  run(input: string | Transcript, options?: RunOptions): AgentRun;
  /**
   * Continues a run paused with `awaiting_approval` — possibly in another process, from
   * `parseAgentState(text)` — with a decision for every pending call.
   */
  resume(state: AgentState, decisions: Record<string, ApprovalDecision>, options?: RunOptions): AgentRun;
}

/**
 * Creates an agent. Its options are checked at once: a bad one (unknown key, `maxTurns: 0`, a NaN
 * budget, duplicate tool names…) throws an `InvalidRequestError` (code `invalid_options`) naming
 * it. A run never throws: a bad input or run option ends it with outcome `error`.
 */
export function createAgent(given: AgentOptions): Agent {
  const options = checkAgentOptions(given);
  const tools = new Map<string, AnyAgentTool>();
  for (const tool of options.tools ?? []) tools.set(tool.name, tool);
  return {
    run(input, given) {
      const prepared = prepareRun(input, given);
      if (!prepared.ok) return failedRun(prepared.error);
      const transcript = prepared.transcript;
      if (options.instructions !== undefined && !transcript.some((item) => item.kind === 'system')) {
        transcript.unshift({ kind: 'system', parts: [{ type: 'text', text: options.instructions }] });
      }
      const state: LoopState = {
        transcript,
        turns: [],
        usage: emptyUsage(),
        cost: 0,
        recoveries: 0,
        compacted: false,
      };
      return start(options, tools, state, prepared.options, undefined);
    },
    resume(given, decisions, givenOptions) {
      const prepared = prepareResume(given, decisions, givenOptions);
      if (!prepared.ok) return failedRun(prepared.error);
      const { saved, options: runOptions } = prepared;
      const state: LoopState = {
        transcript: saved.transcript as LoopState['transcript'],
        turns: [...saved.turns],
        usage: { ...saved.usage },
        cost: saved.cost,
        recoveries: saved.maxTokensRecoveries,
        compacted: false,
      };
      return start(options, tools, state, runOptions, { saved, decisions });
    },
  };
}

/** A run refused before it started: it yields `run-end` and resolves with outcome `error`. */
function failedRun(error: unknown): AgentRun {
  const events = new EventStream<AgentEvent, AgentResult>(() => {});
  events.push({ type: 'run-end', outcome: 'error' });
  events.end({ outcome: 'error', error, transcript: [], text: '', turns: [], usage: emptyUsage(), cost: 0 });
  return {
    [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
    result: () => events.result(),
    interrupt: () => {},
  };
}

function start(
  options: AgentOptions,
  tools: ReadonlyMap<string, AnyAgentTool>,
  state: LoopState,
  runOptions: RunOptions,
  resume: { saved: AgentState; decisions: Record<string, ApprovalDecision> } | undefined,
): AgentRun {
  const controller = runOptions.cancellation ?? new CancellationController();
  const cancellation = controller.handle.checkpoint();
  const events = new EventStream<AgentEvent, AgentResult>(() => controller.interrupt('consumer_stopped'));
  const notify = createObserverDispatch(
    options.observers ?? [],
    (observer: (event: AgentEvent) => unknown, event: AgentEvent) => observer(event),
    { logger: guardLogger(options.logger ?? consoleLogger), source: 'agent' },
  );
  const observed = (options.observers?.length ?? 0) > 0;
  const emit = (event: AgentEvent) => {
    events.push(event);
    // Observers get their own copy: what one changes reaches neither the run nor its reader.
    if (observed) notify(observerCopy(event));
  };
  const onAbort = () => controller.interrupt('aborted');
  if (runOptions.signal?.aborted) onAbort();
  else runOptions.signal?.addEventListener('abort', onAbort, { once: true });
  void (async () => {
    const telemetry = await startTelemetry(options.tracer, {
      agentName: options.name ?? 'agent',
      model: modelName(options),
    });
    const toolIds = resume?.saved.toolIds ?? runOptions.continues?.toolIds;
    const session = runOptions.session ?? createSession(toolIds && ToolIdMap.fromJSON(toolIds));
    const loop = new AgentLoop(state, { options, tools, cancellation, session, telemetry, emit });
    let resumed: ToolResultPart[] | undefined;
    if (resume !== undefined) resumed = await decide(resume.saved, resume.decisions, loop, state);
    const result = await loop.run(resumed);
    runOptions.signal?.removeEventListener('abort', onAbort);
    // A run on its own session ends it (paid Gemini caches deleted) unless it pauses for approval.
    if (runOptions.session === undefined && result.outcome !== 'awaiting_approval')
      await endRunSession(options, session);
    telemetry.end(result);
    events.end(result);
  })().catch((error: unknown) => {
    // Only a failing tracer or observer plumbing gets here; the loop itself never throws.
    events.end({
      outcome: 'error',
      error,
      transcript: state.transcript,
      text: '',
      turns: state.turns,
      usage: state.usage,
      cost: state.cost,
    });
  });
  return {
    [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
    result: () => events.result(),
    interrupt: (reason) => controller.interrupt(reason),
  };
}

/** Nesting an {@link observerCopy} follows; deeper values are handed as they are. */
const copiedDepth = 32;

/**
 * `value` with its plain objects and arrays copied (a text delta: one small object), so an observer
 * changing an event (a tool call's `input`, a finish's `response`) changes only its copy. Anything
 * else (an error, a class instance) is handed as it is: read-only, as the front door's events are.
 */
function observerCopy<Value>(value: Value, depth = 0): Value {
  if (typeof value !== 'object' || value === null || depth > copiedDepth) return value;
  if (Array.isArray(value)) return value.map((entry: unknown) => observerCopy(entry, depth + 1)) as Value;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  // A spread defines own properties (a `__proto__` key stays a key); nested values are copied after.
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key in copy) {
    const entry = copy[key];
    if (typeof entry === 'object' && entry !== null) copy[key] = observerCopy(entry, depth + 1);
  }
  return copy as Value;
}

function modelName(options: AgentOptions): string {
  if (typeof options.model === 'function') return 'per-turn';
  return typeof options.model === 'string' ? options.model : options.model.model;
}

/** Runs approved calls, answers denied ones, and merges everything in call order. */
async function decide(
  saved: AgentState,
  decisions: Record<string, ApprovalDecision>,
  loop: AgentLoop,
  state: LoopState,
): Promise<ToolResultPart[]> {
  const last = [...state.transcript].reverse().find((item) => item.kind === 'assistant');
  const calls = toolCallsOf(last?.parts ?? []);
  const byId = new Map<string, ToolResultPart>(saved.results.map((result) => [result.callId, result]));
  const approved: ToolCallPart[] = [];
  for (const pending of saved.pending) {
    // The state verified (prepareResume): the call run is the pending one, as shown for approval.
    const found = calls.find((candidate) => candidate.id === pending.callId);
    if (found === undefined) continue;
    const call: ToolCallPart = { ...found, name: pending.name, input: pending.input };
    const decision = decisions[pending.callId]!;
    const ok = typeof decision === 'boolean' ? decision : decision.approved;
    if (ok) approved.push(call);
    else {
      const reason =
        typeof decision === 'object' && decision.reason !== undefined ? `: ${decision.reason}` : '.';
      byId.set(call.id, errorResult(call, `The user denied this tool call${reason}`));
    }
  }
  const ran = await runToolCalls(approved, loop.toolContext(state.turns.length));
  ran.forEach((result) => byId.set(result.callId, result));
  return calls.map(
    (call) => byId.get(call.id) ?? errorResult(call, 'Tool call not run: no result was recorded.'),
  );
}

/** Ends `session` on every client the options name (a per-model client function cannot be listed). */
async function endRunSession(options: AgentOptions, session: AdapterSession): Promise<void> {
  const clients = new Set<ModelClient>();
  const add = (choice: unknown) => {
    if (typeof choice === 'object' && choice !== null && 'client' in choice) {
      const client = (choice as { client?: ModelClient }).client;
      if (client !== undefined) clients.add(client);
    }
  };
  if (typeof options.client === 'object') clients.add(options.client);
  add(options.model);
  add(options.fallback?.model);
  await Promise.all(
    [...clients].map((client) =>
      typeof client.endSession === 'function' ? client.endSession(session).catch(() => {}) : undefined,
    ),
  );
}
