/** Timing one run (client CPU via `process.cpuUsage()`), medians, and the sanity checks on every outcome. */
import { isDeepStrictEqual } from 'node:util';
import type { Outcome, Target } from './contenders/types.ts';

/** One timed run. */
export interface Sample {
  /** User + system CPU of this process during the run (all threads, GC helpers included), in µs. */
  cpuMicros: number;
  /** User + system CPU of the main thread only, in µs (less noisy; excludes GC and compiler threads). */
  threadMicros: number;
  wallMs: number;
  outcome: Outcome;
}

const gcFunction = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
/** `BENCH_GC`: `minor` (default) scavenges the young generation, `major` runs a full GC, `none` skips. */
export const gcMode = process.env.BENCH_GC ?? 'minor';
const collectGarbage =
  gcFunction === undefined || gcMode === 'none'
    ? undefined
    : () => gcFunction(gcMode === 'major' ? { type: 'major' } : { type: 'minor' });

/** Whether GC can be forced between runs (node `--expose-gc`). */
export const canForceGc = typeof gcFunction === 'function';

/**
 * Runs `run` once: forces a GC first (outside the window) so one contender's garbage is not
 * collected on another's time, then measures the CPU the whole process spent until the run resolved.
 * The default forced GC is a scavenge: a full GC keeps sweeping on helper threads into the next
 * window and collects the hidden classes of once-per-stream events, deoptimizing code that had
 * specialized on them (see README, “Why a minor GC”).
 */
export async function measure(run: () => Promise<Outcome>): Promise<Sample> {
  collectGarbage?.();
  const wallStart = performance.now();
  const threadStart = process.threadCpuUsage();
  const cpuStart = process.cpuUsage();
  const outcome = await run();
  const cpu = process.cpuUsage(cpuStart);
  const thread = process.threadCpuUsage(threadStart);
  const wallMs = performance.now() - wallStart;
  return { cpuMicros: cpu.user + cpu.system, threadMicros: thread.user + thread.system, wallMs, outcome };
}

/** The median of `values` (mean of the middle two for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Checks that a contender did the whole job: the exact text, the exact parsed tool input, or (raw
 * fetch) every byte. Throws with a short description otherwise.
 */
export function verify(target: Target, outcome: Outcome): void {
  const { expected, bytes } = target.payload;
  if (outcome.bytes !== undefined) {
    if (outcome.bytes !== bytes) throw new Error(`read ${outcome.bytes} bytes, expected ${bytes}`);
    return;
  }
  if (target.scenario === 'text') {
    if (outcome.text !== expected.text)
      throw new Error(
        `text of ${outcome.text.length} chars differs from the expected ${expected.text.length}`,
      );
    return;
  }
  if (!isDeepStrictEqual(outcome.toolInput, expected.toolInput)) {
    const rows = (outcome.toolInput as { rows?: unknown[] } | undefined)?.rows?.length;
    throw new Error(`tool input differs (${rows ?? 'no'} rows, expected ${expected.toolInput?.rows.length})`);
  }
}

/**
 * valgrind's command line for a callgrind run that counts nothing until `callgrind_control -i on`
 * (JIT code included: `--smc-check=all-non-file`), writing its counts to `outFile`.
 */
export function callgrindArgs(outFile: string): string[] {
  return [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${outFile}`,
  ];
}
