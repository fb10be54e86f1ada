/**
 * What the front door adds to a real streamed call, in instructions (issue #20): the fixed-cost
 * clients (`fixed-cost-clients.ts`: adapter, front door) each run under valgrind's callgrind with
 * the instrumentation off during the warm-up and on only while a batch of calls runs (a full GC
 * before each batch, outside the count, as `fixed-cost.ts` does). Instructions do not move with
 * the machine's load (CPU time on a shared 2-core machine moves by ±20–40 %), and the breakdown
 * shows where they go: the JIT's compiler, inline-cache handlers (code that runs before it is
 * optimized or after a GC reset its caches), other builtins, JIT-compiled code, the GC.
 * Instructions are not time (cache misses and stalls are not counted): read them to compare two
 * clients or two checkouts, and `fixed-cost.ts` for microseconds. Needs `valgrind`; ~1–2 min per
 * protocol and client.
 *
 *     node bench/frontdoor-instructions.ts                                   # every protocol
 *     node bench/frontdoor-instructions.ts --protocol=openai --tree=/path/to/other/checkout
 *     INSTRUCTIONS_GC=0 node bench/frontdoor-instructions.ts --protocol=gemini   # no GC before a batch
 *     node bench/frontdoor-instructions.ts --clients=raw,adapter   # the adapter over a raw client
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { flag, startFixedCostUpstream } from './fixed-cost-clients.ts';
import { callgrindArgs } from './measure.ts';
import { createPayload, type Protocol, protocols, providerTypeOf } from './payloads.ts';

const calls = Number(process.env.INSTRUCTIONS_CALLS ?? 300);
const batches = Number(process.env.INSTRUCTIONS_BATCHES ?? 4);
const warmup = Number(process.env.INSTRUCTIONS_WARMUP ?? 1500);
const fullGcBeforeBatch = process.env.INSTRUCTIONS_GC !== '0';
const tree = flag('tree')?.[0] ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
type Client = 'raw' | 'adapter' | 'frontdoor';
/** The two clients compared (`--clients=raw,adapter` for the adapter's own cost over a raw client). */
const [base, compared] = (flag('clients') ?? ['adapter', 'frontdoor']) as [Client, Client];

/** Worker: warm up, then per batch a GC, `READY` (the parent turns counting on), the calls, `DONE`. */
async function worker(protocol: Protocol, client: Client, root: string): Promise<void> {
  const { contenderOf } = (await import(`${tree}/bench/fixed-cost-clients.ts`)) as {
    contenderOf: typeof import('./fixed-cost-clients.ts').contenderOf;
  };
  const payload = createPayload(protocol, 'text', 10);
  const runner = await contenderOf(protocol, client).prepare({
    protocol,
    scenario: 'text',
    delivery: 'bulk',
    root,
    payload,
  });
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  for (let index = 0; index < warmup; index++) await runner.run();
  let outcome;
  for (let batch = 0; batch < batches; batch++) {
    if (fullGcBeforeBatch) (globalThis as { gc?: () => void }).gc?.();
    console.log('READY');
    await lines.next();
    for (let index = 0; index < calls; index++) outcome = await runner.run();
    console.log('DONE');
    await lines.next();
  }
  if (outcome!.text !== payload.expected.text) throw new Error(`${client}/${protocol}: wrong text`);
  await runner.close();
  process.exit(0);
}

/** The bucket of one callgrind function name. */
function categoryOf(name: string): string {
  if (name.startsWith('???:0x')) return 'JIT code';
  if (/compiler::|maglev::|turboshaft/i.test(name)) return 'compiler';
  if (
    /Scaveng|Heap|Mark|Sweep|Evacuat|Remembered|SlotSet|MemoryChunk|PagedSpace|ObjectCache|heap::/.test(name)
  )
    return 'GC';
  if (/Builtins_\w*IC/.test(name)) return 'inline caches';
  if (name.includes('Builtins_')) return 'builtins';
  return 'other';
}

/** Instructions per call by category, read from a callgrind output file. */
function breakdown(file: string): Map<string, number> {
  const text = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const totals = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^\s*([\d,]+) \([^)]*\)\s+(.*)$/.exec(line);
    if (match === null || match[2]!.includes('PROGRAM TOTALS')) continue;
    const category = categoryOf(match[2]!);
    totals.set(category, (totals.get(category) ?? 0) + Number(match[1]!.replaceAll(',', '')));
  }
  const perCall = new Map<string, number>();
  for (const [category, total] of totals) perCall.set(category, total / (calls * batches));
  return perCall;
}

/** Runs one client under callgrind, counting only its batches; its breakdown per call. */
async function measure(protocol: Protocol, client: Client, root: string, directory: string) {
  const file = join(directory, `${protocol}-${client}.callgrind`);
  const child: ChildProcess = spawn(
    'valgrind',
    [
      ...callgrindArgs(file),
      process.execPath,
      '--expose-gc',
      fileURLToPath(import.meta.url),
      `--worker=${protocol},${client},${root}`,
      `--tree=${tree}`,
    ],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const toggle = (on: boolean) =>
    execFileSync('callgrind_control', ['-i', on ? 'on' : 'off', String(child.pid)], { stdio: 'ignore' });
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line !== 'READY' && line !== 'DONE') continue;
    toggle(line === 'READY');
    child.stdin!.write('go\n');
  }
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${client}/${protocol}: the worker exited with ${code}`);
  return breakdown(file);
}

async function main(): Promise<void> {
  try {
    execFileSync('valgrind', ['--version']);
  } catch {
    console.log('valgrind is not installed: nothing measured');
    return;
  }
  const chosen = (flag('protocol') ?? protocols) as Protocol[];
  const upstream = await startFixedCostUpstream(10);
  const directory = mkdtempSync(join(tmpdir(), 'frontdoor-instructions-'));
  console.log(
    `instructions per call of a 10-event streamed reply (callgrind; ${batches} batches × ${calls} calls after ${warmup}` +
      `${fullGcBeforeBatch ? ', a full GC before each batch, not counted' : ', no GC forced'}), checkout ${tree}`,
  );
  try {
    for (const protocol of chosen) {
      const adapter = await measure(protocol, base, upstream.root, directory);
      const front = await measure(protocol, compared, upstream.root, directory);
      const categories = [...new Set([...adapter.keys(), ...front.keys()])].sort(
        (left, right) => (front.get(right) ?? 0) - (front.get(left) ?? 0),
      );
      const sum = (values: Map<string, number>) =>
        [...values.values()].reduce((total, value) => total + value, 0);
      const row = (label: string, a: number, f: number) =>
        console.log(
          `${label.padEnd(20)}${Math.round(a).toLocaleString('en').padStart(12)}${Math.round(f).toLocaleString('en').padStart(12)}${Math.round(
            f - a,
          )
            .toLocaleString('en')
            .padStart(10)}`,
        );
      console.log(
        `\n${providerTypeOf[protocol].padEnd(20)}${base.padStart(12)}${compared.padStart(12)}${'Δ'.padStart(10)}`,
      );
      for (const category of categories) row(category, adapter.get(category) ?? 0, front.get(category) ?? 0);
      row('total', sum(adapter), sum(front));
    }
  } finally {
    upstream.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

const workerFlag = flag('worker');
if (workerFlag !== undefined) {
  const [protocol, client, ...rest] = workerFlag;
  await worker(protocol as Protocol, client as Client, rest.join(','));
} else {
  await main();
}
