/**
 * Where the per-call fixed cost goes (issue #20): each protocol's streamed 10-event call, in a loop
 * against the loopback upstream (`server.ts`), under the V8 CPU profiler (`node:inspector`, started
 * after the warm-up so only the measured calls are sampled). One child process per protocol × client,
 * run one after another. Prints, per protocol, µs per call of self time by file (raw client, adapter,
 * and the difference) and the adapter's inclusive time by `src/` function.
 *
 *     node bench/fixed-cost-profile.ts                           # every protocol, raw + adapter
 *     node bench/fixed-cost-profile.ts --protocol=gemini --only=adapter,frontdoor
 *     PROFILE_CALLS=5000 PROFILE_INTERVAL_US=50 PROFILE_DIR=/tmp/prof node bench/fixed-cost-profile.ts
 *       (PROFILE_DIR keeps each .cpuprofile; `node bench/profile.ts FILE 40 /src/` reads one)
 *
 * Sampling is statistical (one stack every PROFILE_INTERVAL_US of CPU): read it for shares, and
 * bench/fixed-cost.ts for the per-call totals.
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallFrame, CpuProfile } from './cpu-profile.ts';
import { type Client, flag, prepareRunner, startFixedCostUpstream } from './fixed-cost-clients.ts';
import { type Protocol, protocols, providerTypeOf } from './payloads.ts';

const events = 10;
const calls = Number(process.env.PROFILE_CALLS ?? 4000);
const warmup = Number(process.env.PROFILE_WARMUP ?? 2000);
const intervalMicros = Number(process.env.PROFILE_INTERVAL_US ?? 50);
const shown = Number(process.env.PROFILE_TOP ?? 25);

/** One client's profile, in µs per call. */
interface Summary {
  /** Sampled CPU (idle excluded). */
  busy: number;
  /** Self time by file (`src/…`, `node_modules/<package>`, `node:<module>` or a native bucket). */
  files: Record<string, number>;
  /** Inclusive time by `src/` function (`name file:line`), each counted once per sample. */
  functions: Record<string, number>;
}

/** The bucket a frame's self time goes to. */
function fileOf(frame: CallFrame): string {
  const url = frame.url.replace(/^file:\/\//, '');
  if (url === '')
    return frame.functionName.startsWith('(') ? frame.functionName : `(native) ${frame.functionName}`;
  const module = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (module !== null) return `node_modules/${module[1]}`;
  const source = /\/((?:src|bench)\/.*)$/.exec(url);
  if (source !== null) return source[1]!;
  return url.startsWith('node:') ? url.replace(/^node:internal\//, 'node:') : url;
}

function summarize(profile: CpuProfile, count: number): Summary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const files: Record<string, number> = {};
  const functions: Record<string, number> = {};
  let busy = 0;
  profile.samples.forEach((id, index) => {
    const delta = (profile.timeDeltas[index] ?? 0) / count;
    const node = byId.get(id)!;
    const file = fileOf(node.callFrame);
    if (file === '(idle)') return;
    busy += delta;
    files[file] = (files[file] ?? 0) + delta;
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)!.callFrame;
      const where = fileOf(frame);
      if (!where.startsWith('src/')) continue;
      const key = `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      functions[key] = (functions[key] ?? 0) + delta;
    }
  });
  return { busy, files, functions };
}

/** Worker: warm up, then profile `calls` calls and send the summary. */
async function worker(protocol: Protocol, client: Client, root: string): Promise<void> {
  const { runner, payload } = await prepareRunner(protocol, client, root, events);
  for (let index = 0; index < warmup; index++) await runner.run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalMicros });
  await session.post('Profiler.start');
  let outcome;
  for (let index = 0; index < calls; index++) outcome = await runner.run();
  const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
  session.disconnect();
  await runner.close();
  if (outcome!.text !== payload.expected.text) throw new Error(`${client}/${protocol}: wrong text`);
  const directory = process.env.PROFILE_DIR;
  if (directory !== undefined)
    writeFileSync(join(directory, `fixed-cost-${protocol}-${client}.cpuprofile`), JSON.stringify(profile));
  process.send!(summarize(profile, calls));
}

function runWorker(protocol: Protocol, client: Client, root: string): Promise<Summary> {
  const child = fork(fileURLToPath(import.meta.url), [`--worker=${protocol},${client},${root}`]);
  return new Promise((resolve, reject) => {
    child.once('message', (summary: Summary) => resolve(summary));
    child.once('exit', (code) => reject(new Error(`${client}/${protocol} worker exited with ${code}`)));
  });
}

const micros = (value: number | undefined) => (value ?? 0).toFixed(1).padStart(8);

function report(protocol: Protocol, summaries: Partial<Record<Client, Summary>>): void {
  const chosen = Object.keys(summaries) as Client[];
  const header = chosen.map((client) => client.padStart(8)).join('');
  const base = summaries.raw;
  const top = summaries.adapter ?? summaries.frontdoor;
  const showDifference = base !== undefined && top !== undefined && top !== base;
  console.log(`\n## ${providerTypeOf[protocol]}: µs per call sampled (idle excluded)`);
  console.log(
    `${'total'.padEnd(44)}${chosen.map((client) => micros(summaries[client]!.busy)).join('')}${showDifference ? micros(top.busy - base.busy) : ''}`,
  );
  console.log(`\nself time by file${' '.repeat(27)}${header}${showDifference ? '       Δ' : ''}`);
  const files = new Set(chosen.flatMap((client) => Object.keys(summaries[client]!.files)));
  const rows = [...files]
    .map((file) => ({ file, values: chosen.map((client) => summaries[client]!.files[file] ?? 0) }))
    .filter((row) => Math.max(...row.values) >= 0.5)
    .sort((left, right) => Math.max(...right.values) - Math.max(...left.values));
  for (const row of rows) {
    const delta = showDifference ? micros((top.files[row.file] ?? 0) - (base.files[row.file] ?? 0)) : '';
    console.log(`${row.file.slice(-43).padEnd(44)}${row.values.map(micros).join('')}${delta}`);
  }
  for (const client of chosen.filter((name) => name !== 'raw')) {
    console.log(`\n${client}: inclusive time by src/ function`);
    const entries = Object.entries(summaries[client]!.functions)
      .sort((left, right) => right[1] - left[1])
      .slice(0, shown);
    for (const [name, value] of entries) console.log(`${micros(value)}  ${name}`);
  }
}

async function main(): Promise<void> {
  const chosen = (flag('protocol') ?? protocols) as Protocol[];
  const only = (flag('only') ?? ['raw', 'adapter']) as Client[];
  const upstream = await startFixedCostUpstream(events);
  const { root } = upstream;
  console.log(
    `CPU profile of ${calls} streamed ${events}-event calls per client after ${warmup} warm-up calls, ` +
      `sampled every ${intervalMicros} µs; load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}`,
  );
  try {
    for (const protocol of chosen) {
      const summaries: Partial<Record<Client, Summary>> = {};
      for (const client of only) summaries[client] = await runWorker(protocol, client, root);
      report(protocol, summaries);
    }
  } finally {
    upstream.stop();
  }
}

const workerFlag = flag('worker');
if (workerFlag !== undefined) {
  const [protocol, client, ...rest] = workerFlag;
  await worker(protocol as Protocol, client as Client, rest.join(','));
  process.exit(0);
} else {
  await main();
}
