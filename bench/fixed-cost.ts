/**
 * Per-call fixed cost (issue #20): CPU per call of a short streamed reply (10 text deltas), per
 * protocol, for three clients of the same loopback upstream (`server.ts`, a child process): raw
 * undici + eventsource-parser, the protocol's adapter, and the front door (`fixed-cost-clients.ts`).
 *
 * Each client runs in its own process (its own heap and JIT), driven over IPC in many short
 * interleaved rounds (the order rotates each round), so machine noise hits all alike. A round is
 * one batch of calls per worker, each batch measured in process CPU time (`process.cpuUsage`, user +
 * system) after a full GC. Reported per protocol: raw µs/call, the adapter's µs/call above raw and
 * the front door's above the adapter — each the median of the per-round (paired) differences with
 * their interquartile range — and PASS/FAIL against the goals (adapter − raw < 100 µs, front door −
 * adapter < 20 µs). A median that passes while the upper quartile does not is marked `?` (noisy).
 *
 *     node bench/fixed-cost.ts                      # npm run bench:fixed-cost
 *     FIXED_CALLS=400 FIXED_ROUNDS=31 node bench/fixed-cost.ts --protocol=openai,anthropic
 *     node bench/fixed-cost-profile.ts              # where the adapter's µs go, by file and function
 *     FIXED_PROFILE=/tmp/prof node bench/fixed-cost.ts --protocol=openai --only=frontdoor
 *       (each worker writes a .cpuprofile there; read it with `node bench/profile.ts FILE 30 /src/`)
 *     FIXED_GC=0 node bench/fixed-cost.ts            # no full GC before each batch (steady state)
 *     FIXED_BEFORE=/path/to/other/checkout node bench/fixed-cost.ts
 *       (that checkout's adapter and front door run in the same rounds: before/after under the same load)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type Client, clients, flag, prepareRunner, startFixedCostUpstream } from './fixed-cost-clients.ts';
import { providerTypeOf, type Protocol, protocols } from './payloads.ts';
const events = 10;
const calls = Number(process.env.FIXED_CALLS ?? 300);
const rounds = Number(process.env.FIXED_ROUNDS ?? 21);
/** The goals of issue #20, µs per call. */
const goals = { adapter: 100, frontdoor: 20 };
/**
 * Calls before the first round: V8 tiers code run once per call up to optimized code over thousands
 * of calls (`cd bench && node gateway-warmup.ts` shows it for the gateway; here, with 1,500, the
 * Gemini adapter's median above raw read 109–118 µs in two runs one hour and 50–101 µs in two runs
 * with 10,000 the next).
 */
const warmup = Number(process.env.FIXED_WARMUP ?? 10_000);
/**
 * `FIXED_GC=0`: no full GC before each batch. The default (a full GC first, so no batch pays for the
 * garbage of another) puts every batch in the heap state just after a full GC, where each call of
 * either client costs far more than in steady state; this shows the steady-state figures beside it.
 */
const fullGcBeforeBatch = process.env.FIXED_GC !== '0';

/** Worker side: prepares one client, then answers `{ calls }` with the CPU µs per call. */
async function worker(protocol: Protocol, client: Client, root: string): Promise<void> {
  const { runner, payload } = await prepareRunner(protocol, client, root, events);
  const send = (message: object) => process.send!(message);
  process.on('message', (message: { calls?: number }) => {
    void (async () => {
      if (message.calls === undefined) {
        await runner.close();
        process.exit(0);
      }
      if (fullGcBeforeBatch) (globalThis as { gc?: () => void }).gc?.();
      const started = process.cpuUsage();
      let outcome;
      for (let index = 0; index < message.calls; index++) outcome = await runner.run();
      const used = process.cpuUsage(started);
      if (outcome!.text !== payload.expected.text) {
        send({ error: `${client}/${protocol}: wrong text ${JSON.stringify(outcome!.text)}` });
        return;
      }
      send({ cpuPerCall: (used.user + used.system) / message.calls });
    })().catch((error: unknown) => send({ error: String((error as Error)?.stack ?? error) }));
  });
  send({ ready: true });
}

interface Worker {
  protocol: Protocol;
  client: Client;
  /** `after`: this tree; `before`: the tree of `FIXED_BEFORE`. */
  tree: 'before' | 'after';
  child: ChildProcess;
  samples: number[];
}

function ask(worker: Worker, calls: number): Promise<number> {
  return new Promise((resolve, reject) => {
    worker.child.once('message', (reply: { cpuPerCall?: number; error?: string }) =>
      reply.error === undefined ? resolve(reply.cpuPerCall!) : reject(new Error(reply.error)),
    );
    worker.child.send({ calls });
  });
}

/** The `fraction` quantile of `values` (linear between the two nearest ranks). */
function quantile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  const position = (sorted.length - 1) * fraction;
  const low = Math.floor(position);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

/** Median and interquartile range of some µs samples. */
interface Spread {
  median: number;
  low: number;
  high: number;
}

function spreadOf(values: readonly number[]): Spread {
  return { median: quantile(values, 0.5), low: quantile(values, 0.25), high: quantile(values, 0.75) };
}

/** `PASS` when the median is under the goal (`PASS?` when the upper quartile is not), else `FAIL`. */
function verdict(spread: Spread | undefined, goal: number): string {
  if (spread === undefined) return '';
  if (spread.median >= goal) return 'FAIL';
  return spread.high >= goal ? 'PASS?' : 'PASS';
}

function formatSpread(spread: Spread | undefined): string {
  if (spread === undefined) return '—';
  return `${spread.median.toFixed(1)} [${spread.low.toFixed(0)}, ${spread.high.toFixed(0)}]`;
}

async function main(): Promise<void> {
  const only = (flag('only') ?? clients) as Client[];
  const chosen = (flag('protocol') ?? protocols) as Protocol[];
  const here = fileURLToPath(import.meta.url);
  const upstream = await startFixedCostUpstream(events);
  const { root } = upstream;
  const profile = process.env.FIXED_PROFILE;
  // FIXED_BEFORE=<another checkout>: its adapter and front door run in the same rounds (paired).
  const before = process.env.FIXED_BEFORE;
  const trees = before === undefined ? (['after'] as const) : (['before', 'after'] as const);
  const workers: Worker[] = [];
  for (const protocol of chosen)
    for (const client of only)
      for (const tree of client === 'raw' ? (['after'] as const) : trees) {
        const execArgv = ['--expose-gc'];
        if (profile !== undefined) execArgv.push('--cpu-prof', `--cpu-prof-dir=${profile}`);
        const script = tree === 'after' ? here : `${before}/bench/fixed-cost.ts`;
        const child = fork(script, [`--worker=${protocol},${client},${root}`], { execArgv });
        const worker = { protocol, client, tree, child, samples: [] };
        await new Promise<void>((resolve, reject) =>
          child.once('message', (message: { ready?: boolean; error?: string }) =>
            message.ready === true ? resolve() : reject(new Error(message.error)),
          ),
        );
        await ask(worker, warmup);
        workers.push(worker);
      }
  for (let round = 0; round < rounds; round++) {
    const order = workers.map((_, index) => workers[(index + round) % workers.length]!);
    for (const worker of order) worker.samples.push(await ask(worker, calls));
  }
  for (const worker of workers) worker.child.send({});
  upstream.stop();
  const find = (protocol: Protocol, client: Client, tree: Worker['tree']) =>
    workers.find((entry) => entry.protocol === protocol && entry.client === client && entry.tree === tree);
  const value = (worker: Worker | undefined) =>
    worker === undefined ? '—' : quantile(worker.samples, 0.5).toFixed(1);
  /** The per-round differences (paired: a round's load drift hits both). */
  const difference = (high: Worker | undefined, low: Worker | undefined) =>
    high === undefined || low === undefined
      ? undefined
      : spreadOf(high.samples.map((sample, index) => sample - low.samples[index]!));
  console.log(
    `CPU µs per call, ${events}-event streamed reply, ${rounds} interleaved rounds × ${calls} calls (warm-up ${warmup}${fullGcBeforeBatch ? ', a full GC before each' : ', no GC forced'}); ` +
      `columns raw/adapter/front: median; differences: median [p25, p75] of the per-round differences; ` +
      `goals: adapter−raw < ${goals.adapter}, front−adapter < ${goals.frontdoor}; load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}`,
  );
  console.log(
    `${'protocol'.padEnd(27)}${'raw'.padStart(8)}${'adapter'.padStart(9)}${'front'.padStart(8)}  ${'adapter−raw'.padEnd(25)}${'front−adapter'.padEnd(22)}`,
  );
  let failed = false;
  for (const protocol of chosen)
    for (const tree of trees) {
      const adapter = find(protocol, 'adapter', tree);
      const front = find(protocol, 'frontdoor', tree);
      const overRaw = difference(adapter, find(protocol, 'raw', 'after'));
      const overAdapter = difference(front, adapter);
      const verdicts = [verdict(overRaw, goals.adapter), verdict(overAdapter, goals.frontdoor)];
      if (tree === 'after' && verdicts.includes('FAIL')) failed = true;
      const label = before === undefined ? providerTypeOf[protocol] : `${providerTypeOf[protocol]} (${tree})`;
      console.log(
        `${label.padEnd(27)}${value(find(protocol, 'raw', 'after')).padStart(8)}${value(adapter).padStart(9)}${value(front).padStart(8)}  ` +
          `${`${formatSpread(overRaw)} ${verdicts[0]}`.padEnd(25)}${`${formatSpread(overAdapter)} ${verdicts[1]}`.padEnd(22)}`,
      );
    }
  if (before !== undefined) {
    console.log('\nafter − before (paired per round): median [p25, p75]');
    for (const protocol of chosen)
      for (const client of ['adapter', 'frontdoor'] as const) {
        const change = difference(find(protocol, client, 'after'), find(protocol, client, 'before'));
        if (change !== undefined)
          console.log(`${`${providerTypeOf[protocol]} ${client}`.padEnd(27)}${formatSpread(change)}`);
      }
  }
  const load = loadavg()[0]!;
  if (load > availableParallelism())
    console.log(
      `\nThe machine is busy (load ${load.toFixed(2)} on ${availableParallelism()} cores): CPU per call is inflated, differences with it; the verdicts are indicative.`,
    );
  console.log(failed ? 'FAIL: a goal is not met' : 'PASS: every goal measured is met');
}

const workerFlag = flag('worker');
if (workerFlag !== undefined) {
  const [protocol, client, ...rest] = workerFlag;
  await worker(protocol as Protocol, client as Client, rest.join(','));
} else {
  await main();
}
