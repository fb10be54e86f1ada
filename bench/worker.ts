/**
 * One contender in its own process, driven by run.ts over IPC. Each contender gets a heap, a JIT
 * and GC helper threads of its own, so one library's garbage or megamorphic call sites are never
 * charged to another (in one shared process the AI SDK's heap added ~1 µs/token of off-thread GC to
 * whichever contender ran after it). run.ts still interleaves the runs, so machine noise hits all.
 */
import type { Contender, ContenderId, Runner, Target } from './contenders/types.ts';
import { measure, verify } from './measure.ts';
import {
  createPayload,
  type Delivery,
  type GeminiToolFormat,
  type Protocol,
  type Scenario,
} from './payloads.ts';

/** What run.ts asks a worker to do; every request gets exactly one `Reply`. */
export type Request =
  | { op: 'load'; family: ContenderId; protocol: Protocol }
  | {
      op: 'prepare';
      scenario: Scenario;
      delivery: Delivery;
      root: string;
      tokens: number;
      geminiToolFormat: GeminiToolFormat;
    }
  | { op: 'warmup' }
  | { op: 'run' }
  | { op: 'close' };

/** A worker's answer: `error` set when the request failed (`skipped` when the contender cannot run). */
export interface Reply {
  error?: string;
  skipped?: boolean;
  label?: string;
  wallMs?: number;
  /** Process and main-thread CPU µs per token of one timed run. */
  cpuPerUnit?: number;
  threadPerUnit?: number;
  events?: number;
  reads?: number;
}

let protocol: Protocol | undefined;
let contender: Contender | undefined;
let target: Target | undefined;
let runner: Runner | undefined;

async function handle(request: Request): Promise<Reply> {
  switch (request.op) {
    case 'load': {
      protocol = request.protocol;
      const module = (await import(new URL(`./contenders/${request.family}.ts`, import.meta.url).href)) as {
        createContender(protocol: Protocol): Contender;
      };
      contender = module.createContender(protocol);
      return { label: contender.label };
    }
    case 'prepare': {
      if (contender === undefined || protocol === undefined) return { error: 'prepare before load' };
      await runner?.close();
      runner = undefined;
      const { scenario, delivery, root, tokens, geminiToolFormat } = request;
      const payload = createPayload(protocol, scenario, tokens, geminiToolFormat);
      target = { protocol, scenario, delivery, root, payload };
      try {
        runner = await contender.prepare(target);
        return {};
      } catch (error) {
        return { error: (error as Error).message, skipped: (error as Error).name === 'SkipContender' };
      }
    }
    case 'warmup': {
      if (runner === undefined || target === undefined) return { error: 'not prepared' };
      const started = performance.now();
      verify(target, await runner.run());
      return { wallMs: performance.now() - started };
    }
    case 'run': {
      if (runner === undefined || target === undefined) return { error: 'not prepared' };
      const active = runner;
      const sample = await measure(() => active.run());
      verify(target, sample.outcome);
      const units = target.payload.units;
      const reply: Reply = {
        cpuPerUnit: sample.cpuMicros / units,
        threadPerUnit: sample.threadMicros / units,
        wallMs: sample.wallMs,
        events: sample.outcome.events,
      };
      if (sample.outcome.reads !== undefined) reply.reads = sample.outcome.reads;
      return reply;
    }
    case 'close':
      await runner?.close();
      runner = undefined;
      return {};
  }
}

process.on('message', (request: Request) => {
  handle(request).then(
    (reply) => process.send?.(reply),
    (error: unknown) => process.send?.({ error: (error as Error)?.message ?? String(error) }),
  );
});
// The parent closing the IPC channel (exit, crash) ends the worker.
process.on('disconnect', () => process.exit(0));
