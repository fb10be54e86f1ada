/**
 * `npm run bench`: streams the same bytes through five contenders, each in its own process
 * (bench/worker.ts), runs interleaved, and reports CPU µs per token.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import type { ContenderId, Target } from './contenders/types.ts';
import { gcMode, median } from './measure.ts';
import type { Reply, Request } from './worker.ts';
import {
  createPayload,
  type Delivery,
  deliveries,
  type GeminiToolFormat,
  type Payload,
  type Protocol,
  protocols,
  type Scenario,
  scenarios,
} from './payloads.ts';
import {
  type BenchReport,
  type CellResult,
  type ContenderResult,
  consoleTables,
  evaluateCell,
  writeResults,
} from './report.ts';

/** What to run, from flags and environment. */
interface Options {
  tokens: number;
  runs: number;
  warmup: number;
  quick: boolean;
  only: ContenderId[] | undefined;
  protocols: Protocol[];
  scenarios: Scenario[];
  deliveries: Delivery[];
  geminiToolFormat: GeminiToolFormat;
  /** Timed runs per round for a contender whose run takes `sampleMs / maxRepeats` or less. */
  maxRepeats: number;
  /** Wall time per round a fast contender's repeats aim for, in ms. */
  sampleMs: number;
  /** Write results/latest.*: by default only for a full, non-quick matrix. */
  write: boolean;
}

const families = ['raw-fetch', 'sse-parse', 'switchyard', 'official-sdk', 'ai-sdk'] as const;

function listFlag<Value extends string>(args: string[], name: string, all: readonly Value[]): Value[] {
  const flag = args.find((arg) => arg.startsWith(`--${name}=`));
  if (flag === undefined) return [...all];
  const values = flag.slice(name.length + 3).split(',') as Value[];
  for (const value of values) if (!all.includes(value)) throw new Error(`--${name}: unknown value ${value}`);
  return values;
}

function parseOptions(args: string[]): Options {
  const quick = args.includes('--quick');
  const number = (name: string, fallback: number) => {
    const value = process.env[name];
    return value === undefined || value === '' ? fallback : Math.max(1, Number.parseInt(value, 10));
  };
  const only = args.some((arg) => arg.startsWith('--only=')) ? listFlag(args, 'only', families) : undefined;
  const selected = {
    protocols: listFlag(args, 'protocol', protocols),
    scenarios: listFlag(args, 'scenario', scenarios),
    deliveries: listFlag(args, 'delivery', deliveries),
  };
  const filtered =
    only !== undefined ||
    selected.protocols.length < protocols.length ||
    selected.scenarios.length < scenarios.length ||
    selected.deliveries.length < deliveries.length;
  return {
    tokens: number('BENCH_TOKENS', quick ? 2_000 : 20_000),
    runs: number('BENCH_RUNS', quick ? 3 : 5),
    warmup: number('BENCH_WARMUP', quick ? 1 : 2),
    maxRepeats: number('BENCH_REPEATS', quick ? 2 : 5),
    sampleMs: 150,
    quick,
    only,
    ...selected,
    geminiToolFormat: (process.env.BENCH_GEMINI_TOOL as GeminiToolFormat | undefined) ?? 'partial-args',
    write: args.includes('--write') || (!args.includes('--no-write') && !quick && !filtered),
  };
}

/** Starts bench/server.ts in its own process and resolves its URL. */
async function startServer(options: Options): Promise<{ url: string; child: ChildProcess }> {
  const script = new URL('./server.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, [script, String(options.tokens), options.geminiToolFormat], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  return { url: (JSON.parse(line) as { url: string }).url, child };
}

/** How long a worker may take to answer one request (one run of the slowest contender takes ~3 s). */
const workerTimeoutMs = 120_000;

/** A contender running in its own process (bench/worker.ts); requests are answered in order. */
class Worker {
  readonly id: ContenderId;
  readonly label: string;
  private readonly child: ChildProcess;

  private constructor(id: ContenderId, label: string, child: ChildProcess) {
    this.id = id;
    this.label = label;
    this.child = child;
  }

  /** Spawns a worker for `family` on `protocol` (with `--expose-gc`, so it can GC between runs). */
  static async start(family: ContenderId, protocol: Protocol): Promise<Worker> {
    const script = new URL('./worker.ts', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--expose-gc', script], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const reply = await Worker.ask(child, { op: 'load', family, protocol });
    if (reply.error !== undefined) throw new Error(`${family}: ${reply.error}`);
    return new Worker(family, reply.label ?? family, child);
  }

  private static async ask(child: ChildProcess, request: Request): Promise<Reply> {
    const done = new AbortController();
    const { signal } = done;
    const exited = once(child, 'exit', { signal }).then(([code]) => ({ error: `worker exited (${code})` }));
    const answered = once(child, 'message', { signal }).then(([reply]) => reply as Reply);
    // A contender that hangs fails its cell instead of stalling the whole run.
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<Reply>((resolve) => {
      timer = setTimeout(
        () => resolve({ error: `no answer to ${request.op} in ${workerTimeoutMs / 1000} s` }),
        workerTimeoutMs,
      );
    });
    child.send(request);
    try {
      const reply = await Promise.race([answered, exited, timedOut]);
      if (reply === undefined || (reply.error !== undefined && reply.error.startsWith('no answer')))
        child.kill();
      return reply;
    } finally {
      clearTimeout(timer);
      done.abort();
      exited.catch(() => {});
      answered.catch(() => {});
    }
  }

  request(request: Request): Promise<Reply> {
    return Worker.ask(this.child, request);
  }

  stop(): void {
    this.child.disconnect();
  }
}

async function startWorkers(protocol: Protocol, only: ContenderId[] | undefined): Promise<Worker[]> {
  const selected = families.filter((family) => only === undefined || only.includes(family));
  // With `--only`, unselected families (and their peer libraries) are never imported.
  return Promise.all(selected.map((family) => Worker.start(family, protocol)));
}

interface Slot {
  worker: Worker;
  ready: boolean;
  result: ContenderResult;
  samples: number[];
  threadSamples: number[];
  walls: number[];
  events: number;
  reads: number[];
}

async function prepareSlot(worker: Worker, target: Target, options: Options): Promise<Slot> {
  const slot: Slot = {
    worker,
    ready: false,
    result: { id: worker.id, label: worker.label, status: 'ok' },
    samples: [],
    threadSamples: [],
    walls: [],
    events: 0,
    reads: [],
  };
  const { scenario, delivery, root } = target;
  const reply = await worker.request({
    op: 'prepare',
    scenario,
    delivery,
    root,
    tokens: options.tokens,
    geminiToolFormat: options.geminiToolFormat,
  });
  if (reply.error === undefined) slot.ready = true;
  else
    slot.result = {
      ...slot.result,
      status: reply.skipped === true ? 'skipped' : 'failed',
      note: reply.error,
    };
  return slot;
}

function fail(slot: Slot, message: string): void {
  slot.result = { ...slot.result, status: 'failed', note: message };
  slot.ready = false;
}

/** Runs `slot` once untimed and checks its outcome; returns the wall time in ms. */
async function warmUp(slot: Slot): Promise<number> {
  if (!slot.ready) return 0;
  const reply = await slot.worker.request({ op: 'warmup' });
  if (reply.error !== undefined) fail(slot, reply.error);
  return reply.wallMs ?? 0;
}

/** One timed run of `slot`, measured and checked inside its worker. */
async function timedRun(slot: Slot): Promise<void> {
  if (!slot.ready) return;
  const reply = await slot.worker.request({ op: 'run' });
  if (reply.error !== undefined) return fail(slot, reply.error);
  slot.samples.push(reply.cpuPerUnit ?? Number.NaN);
  slot.threadSamples.push(reply.threadPerUnit ?? Number.NaN);
  slot.walls.push(reply.wallMs ?? Number.NaN);
  slot.events = reply.events ?? 0;
  if (reply.reads !== undefined) slot.reads.push(reply.reads);
}

/**
 * One cell: warm-up runs, then `runs` rounds with the contenders in a rotating order. Within a
 * round a fast contender runs up to `maxRepeats` times (interleaved with the others), so cheap
 * contenders get more samples for the same wall time as one slow AI SDK run.
 */
async function runCell(workers: Worker[], target: Target, options: Options): Promise<CellResult> {
  const slots = await Promise.all(workers.map((worker) => prepareSlot(worker, target, options)));
  const repeats = new Map<Slot, number>();
  for (let round = 0; round < options.warmup; round++) {
    for (const slot of slots) {
      const wallMs = await warmUp(slot);
      repeats.set(slot, Math.max(1, Math.min(options.maxRepeats, Math.round(options.sampleMs / wallMs))));
    }
  }
  for (let round = 0; round < options.runs; round++) {
    const order = slots.map((_, index) => slots[(index + round) % slots.length] as Slot);
    for (let repeat = 0; repeat < options.maxRepeats; repeat++) {
      for (const slot of order) if (repeat < (repeats.get(slot) ?? 1)) await timedRun(slot);
    }
  }
  await Promise.all(slots.map((slot) => slot.worker.request({ op: 'close' })));
  const results = slots.map((slot): ContenderResult => {
    if (slot.result.status !== 'ok') return slot.result;
    const result: ContenderResult = {
      ...slot.result,
      usPerUnit: median(slot.samples),
      samples: slot.samples.map((value) => Math.round(value * 1000) / 1000),
      mainThreadUsPerUnit: Math.round(median(slot.threadSamples) * 1000) / 1000,
      wallMs: Math.round(median(slot.walls) * 10) / 10,
      events: slot.events,
    };
    if (slot.reads.length > 0) result.reads = median(slot.reads);
    return result;
  });
  const { protocol, scenario, delivery, payload } = target;
  return evaluateCell({
    protocol,
    scenario,
    delivery,
    units: payload.units,
    bytes: payload.bytes,
    contenders: results,
  });
}

function progressLine(cell: CellResult, seconds: number): string {
  const parts = cell.contenders.map((result) =>
    result.status === 'ok'
      ? `${result.id} ${(result.usPerUnit ?? 0).toFixed(2)} (${(result.mainThreadUsPerUnit ?? 0).toFixed(2)})`
      : `${result.id} ${result.status}`,
  );
  const where = `${cell.protocol}/${cell.scenario}/${cell.delivery}`;
  return `  ${where}: ${parts.join(', ')} µs/token, process (main thread); ${seconds.toFixed(1)} s`;
}

function collectNotes(cells: CellResult[], options: Options): string[] {
  const notes = new Set<string>();
  for (const cell of cells)
    for (const result of cell.contenders)
      if (result.status !== 'ok')
        notes.add(`${cell.protocol} ${result.label} ${result.status}: ${result.note}`);
  if (cells.some((cell) => cell.protocol === 'gemini' && cell.scenario === 'tool')) {
    const format =
      options.geminiToolFormat === 'partial-args'
        ? 'functionCall.partialArgs, one argument piece per SSE event'
        : 'one functionCall holding every row';
    notes.add(`Gemini tool call streamed as ${format}.`);
  }
  const reads = cells
    .map((cell) => ({ cell, reads: cell.contenders.find((result) => result.id === 'raw-fetch')?.reads }))
    .filter((entry) => entry.reads !== undefined)
    .map(({ cell, reads }) => `${cell.protocol}/${cell.scenario}/${cell.delivery} ${reads}`);
  if (reads.length > 0) notes.add(`Body pieces seen by the raw reader per response: ${reads.join(', ')}.`);
  notes.add(
    'Targets: see bench/README.md. c/b applies to every bulk row, and to drip rows for OpenAI and Gemini.',
  );
  return [...notes];
}

/** Runs every selected cell, in protocol → scenario → delivery order. */
async function runMatrix(options: Options, serverUrl: string): Promise<CellResult[]> {
  const cells: CellResult[] = [];
  for (const protocol of options.protocols) {
    const workers = await startWorkers(protocol, options.only);
    for (const scenario of options.scenarios) {
      const payload: Payload = createPayload(protocol, scenario, options.tokens, options.geminiToolFormat);
      for (const delivery of options.deliveries) {
        const cellStart = performance.now();
        const root = `${serverUrl}/${delivery}/${scenario}`;
        const cell = await runCell(workers, { protocol, scenario, delivery, root, payload }, options);
        cells.push(cell);
        console.log(progressLine(cell, (performance.now() - cellStart) / 1000));
      }
    }
    for (const worker of workers) worker.stop();
  }
  return cells;
}

function buildReport(cells: CellResult[], options: Options, seconds: number): BenchReport {
  const args = process.argv.slice(2).join(' ');
  const command =
    process.env.npm_lifecycle_event === 'bench'
      ? `npm run bench${args ? ` -- ${args}` : ''}`
      : `node run.ts ${args}`;
  return {
    meta: {
      date: new Date().toISOString(),
      command: command.trim(),
      node: process.versions.node,
      cpu: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
      tokens: options.tokens,
      runs: options.runs,
      maxRepeats: options.maxRepeats,
      warmup: options.warmup,
      gc: gcMode,
      geminiToolFormat: options.geminiToolFormat,
      dripGapMicros: Number(process.env.BENCH_DRIP_GAP_US ?? 0),
      seconds,
    },
    notes: collectNotes(cells, options),
    cells,
  };
}

/**
 * Runs bench/concurrency.ts in its own process (so the matrix's heap does not count in its peak
 * RSS), passing the protocol/delivery flags through. Resolves its exit code.
 */
async function runConcurrency(args: string[]): Promise<number> {
  const script = new URL('./concurrency.ts', import.meta.url).pathname;
  const passed = args.filter((arg) => arg.startsWith('--protocol=') || arg.startsWith('--delivery='));
  const child = spawn(process.execPath, [script, ...passed], { stdio: 'inherit' });
  const [code] = (await once(child, 'exit')) as [number | null];
  return code ?? 1;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  // `--concurrency`: only the concurrency benchmark; `--no-concurrency`: only the CPU matrix.
  if (args.includes('--concurrency')) {
    process.exitCode = await runConcurrency(args);
    return;
  }
  const options = parseOptions(args.filter((arg) => arg !== '--no-concurrency'));
  const started = performance.now();
  const server = await startServer(options);
  console.log(
    `bench: ${options.tokens} tokens/fragments, ${options.runs} rounds (≤${options.maxRepeats} runs each) + ` +
      `${options.warmup} warm-up, GC between runs: ${gcMode}, each contender in its own process, ` +
      `server ${server.url}`,
  );
  let cells: CellResult[];
  try {
    cells = await runMatrix(options, server.url);
  } finally {
    server.child.stdin?.end();
    server.child.kill();
  }
  const report = buildReport(cells, options, Math.round((performance.now() - started) / 1000));
  console.log(`\n${consoleTables(report)}\n`);
  for (const note of report.notes) console.log(`note: ${note}`);
  if (options.write) console.log(`\nwrote ${(await writeResults(report)).join(', ')}`);
  else console.log('\nfiltered or quick run: results/latest.* not written (pass --write to write them)');
  console.log(`bench: done in ${report.meta.seconds} s`);
  const failed = cells.some((cell) => cell.contenders.some((result) => result.status === 'failed'));
  if (failed) process.exitCode = 1;
  if (!args.includes('--no-concurrency') && !options.quick) {
    console.log('');
    if ((await runConcurrency(args)) !== 0) process.exitCode = 1;
  }
}

await main();
