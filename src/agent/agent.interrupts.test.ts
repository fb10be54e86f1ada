import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLogger } from '../core/logger.ts';
import { createAnthropic } from '../providers/anthropic/index.ts';
import { anthropicError, type Emulator, startEmulator } from '../testing/emulator/index.ts';
import { createScriptedAdapter } from '../testing/scripted-adapter.ts';
import { createAgent } from './agent.ts';
import { CancellationController, InterruptSignal } from './cancellation.ts';
import { call, expectConsistent, resultsById, resultText, text } from './test-support.ts';
import { tool } from '../schemas/structured.ts';
import { assistantText } from './transcript-tools.ts';
import type { AgentEvent } from './types.ts';

const slow = 'word '.repeat(400);

/** Runs until `when` matches an event, interrupts there, and returns the result. */
async function interruptAt(
  run: ReturnType<ReturnType<typeof createAgent>['run']>,
  when: (event: AgentEvent) => boolean,
) {
  let interrupted = false;
  for await (const event of run) {
    if (!interrupted && when(event)) {
      interrupted = true;
      run.interrupt('user_cancelled');
    }
  }
  return run.result();
}

describe('cancellation controller', () => {
  it('cancels checkpoints taken before an interrupt, not those taken after', () => {
    const controller = new CancellationController();
    const before = controller.handle.checkpoint();
    controller.interrupt('stop');
    const after = controller.handle.checkpoint();
    expect(controller.generation).toBe(1);
    expect(before.isCancelled).toBe(true);
    expect(before.reason).toBe('stop');
    expect(before.signal.reason).toBeInstanceOf(InterruptSignal);
    expect(after.isCancelled).toBe(false);
    expect(after.signal.aborted).toBe(false);
  });

  it('a stale interrupt does not cancel a later run on the same controller', async () => {
    const controller = new CancellationController();
    controller.interrupt();
    const adapter = createScriptedAdapter([{ content: [text('fine')] }]);
    const result = await createAgent({ client: adapter, model: 'scripted:m' })
      .run('go', { cancellation: controller })
      .result();
    expect(result.outcome).toBe('completed');
  });
});

describe('interrupts (scripted adapter)', () => {
  it('during the model stream: cancelled, partial text kept with interrupted metadata', async () => {
    const adapter = createScriptedAdapter([{ content: [text(slow)], chunkSize: 4 }]);
    const run = createAgent({ client: adapter, model: 'scripted:m' }).run('go');
    const result = await interruptAt(run, (event) => event.type === 'text-delta');
    expect(result.outcome).toBe('cancelled');
    expect(result.interrupted).toEqual({ reason: 'user_cancelled', during: 'model' });
    const last = result.transcript.at(-1)!;
    expect(last.kind).toBe('assistant');
    expect(last.metadata).toMatchObject({
      'switchyard.interrupted': true,
      'switchyard.interrupt_reason': 'user_cancelled',
    });
    // The partial text stays in the transcript; the result's text is empty (no answer was completed).
    const partial = assistantText(result.transcript);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(slow.length);
    expect(result.text).toBe('');
    expect(result.turns[0]?.finishReason).toBe('cancelled');
    expectConsistent(result.transcript);
  });

  it('during a streaming tool call: the half-received call is answered, never executed', async () => {
    let ran = false;
    const write = tool({
      name: 'write',
      input: z.object({ body: z.string() }),
      execute: () => {
        ran = true;
        return 'written';
      },
    });
    const adapter = createScriptedAdapter([{ content: [call('c1', 'write', { body: slow })], chunkSize: 4 }]);
    const run = createAgent({ client: adapter, model: 'scripted:m', tools: [write] }).run('go');
    const result = await interruptAt(run, (event) => event.type === 'tool-call-delta');
    expect(result.outcome).toBe('cancelled');
    expect(ran).toBe(false);
    const answer = resultsById(result.transcript).get('c1');
    expect(answer).toMatchObject({ isError: true, metadata: { 'switchyard.interrupted': true } });
    expect(resultText(answer)).toBe('Tool call not run: the run was interrupted.');
    expectConsistent(result.transcript);
  });

  it('during a tool: the tool’s signal aborts, its call gets an interrupted error result, finished calls keep theirs', async () => {
    let sawAbort = false;
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    const tools = [
      tool({ name: 'quick', input: z.object({}), execute: () => 'quick done' }),
      tool({
        name: 'long',
        input: z.object({}),
        execute: (_input, { signal }) =>
          new Promise<string>((resolve) => {
            signal.addEventListener('abort', () => {
              sawAbort = true;
              resolve('too late');
            });
            markStarted();
          }),
      }),
    ];
    const adapter = createScriptedAdapter([
      { content: [call('q', 'quick', {}), call('l', 'long', {})] },
      { content: [text('never')] },
    ]);
    const run = createAgent({ client: adapter, model: 'scripted:m', tools }).run('go');
    await started;
    run.interrupt();
    const result = await run.result();
    expect(result.outcome).toBe('cancelled');
    expect(result.interrupted).toEqual({ reason: 'user_cancelled', during: 'tool' });
    expect(sawAbort).toBe(true);
    const results = resultsById(result.transcript);
    expect(resultText(results.get('q'))).toBe('quick done');
    expect(resultText(results.get('l'))).toBe(
      'Tool call interrupted while it was running (user_cancelled); it did not complete.',
    );
    expect(result.transcript.at(-1)).toMatchObject({
      kind: 'tool',
      metadata: { 'switchyard.interrupted': true },
    });
    expect(adapter.requests).toHaveLength(1);
    expectConsistent(result.transcript);
  });

  it('through an AbortSignal: reason `aborted`', async () => {
    const controller = new AbortController();
    const adapter = createScriptedAdapter([{ content: [text(slow)], chunkSize: 2 }]);
    const run = createAgent({ client: adapter, model: 'scripted:m' }).run('go', {
      signal: controller.signal,
    });
    // Aborted once the stream has begun (a timer raced the whole stream on a fast run).
    for await (const event of run)
      if (event.type === 'text-delta' && !controller.signal.aborted) controller.abort();
    const result = await run.result();
    expect(result).toMatchObject({ outcome: 'cancelled', interrupted: { reason: 'aborted' } });
  });
});

describe('interrupts over the emulator (Anthropic adapter)', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('during retry backoff: cancelled at once, no further attempt', async () => {
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded', { 'retry-after': '30' }));
    const before = emulator.requests.length;
    const adapter = createAnthropic({
      baseURL: `${emulator.url}/v1`,
      apiKey: 'test-key',
      maxRetries: 2,
      logger: createMemoryLogger(),
    });
    const run = createAgent({ client: adapter, model: 'anthropic:claude-sonnet-4-5' }).run('go');
    const started = performance.now();
    const result = await interruptAt(run, (event) => event.type === 'retry');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.outcome).toBe('cancelled');
    expect(result.interrupted?.during).toBe('model');
    expect(emulator.requests.length - before).toBe(1);
    expectConsistent(result.transcript);
  });

  it('during a real SSE stream: the partial Anthropic response is kept and marked', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: slow }],
      chunkSize: 4,
      fault: { dripMs: 5 },
    });
    const adapter = createAnthropic({
      baseURL: `${emulator.url}/v1`,
      apiKey: 'test-key',
      logger: createMemoryLogger(),
    });
    const run = createAgent({ client: adapter, model: 'anthropic:claude-sonnet-4-5' }).run('go');
    const result = await interruptAt(run, (event) => event.type === 'text-delta');
    expect(result.outcome).toBe('cancelled');
    expect(result.transcript.at(-1)?.metadata).toMatchObject({ 'switchyard.interrupted': true });
    expectConsistent(result.transcript);
  });
});
