/**
 * Does V8 still compile or deoptimize the gateway's code at steady state? Each server
 * (`gateway-server.ts`, `gateway-floor-server.ts`) runs with `--trace-opt --trace-deopt`
 * on the mock upstream of `gateway-rig.ts`. First `WARMUP` calls as bench/gateway.ts warms
 * up (half streamed, 8 at a time; for the gateway then as many Anthropic Messages calls, its
 * cross-protocol target), then counted phases of `CALLS` sequential calls each, as the bench's rows
 * run them: non-streamed, streamed, and the warm-up's mix again. Per phase, per 1,000 calls: the
 * optimizations V8 finished (Maglev, TurboFan, OSR), the deoptimizations (by function and reason),
 * the code GC deoptimized ("marking dependent code"), and the CPU (µs per call) of the process's
 * threads by name from /proc (`node` the main thread, `V8 DefaultWorke` the compilers' and
 * concurrent GC's threads, `libuv-worker`s). Counts, unlike CPU time, do not move with the load.
 *
 *     node bench/gateway-steady-deopts.ts                      # 40,000 warm-up, 3 phases of 4,000
 *     WARMUP=8000 CALLS=2000 ONLY=switchyard node bench/gateway-steady-deopts.ts
 *     SHOW=20 node bench/gateway-steady-deopts.ts               # name up to 20 events per phase
 *     NODE_FLAGS=--trace-deopt-verbose node bench/gateway-steady-deopts.ts
 *     TRACE_FILE=/tmp/trace ONLY=switchyard node bench/gateway-steady-deopts.ts   # the whole trace too
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { chatBody, startUpstream, traced } from './gateway-rig.ts';

const warmup = Number(process.env.WARMUP ?? 40_000);
const calls = Number(process.env.CALLS ?? 4000);
const show = Number(process.env.SHOW ?? 12);
const only = process.env.ONLY;
/** A file to write each server's whole trace to (`<file>.<server>`), to follow one function's tiers. */
const traceFile = process.env.TRACE_FILE;
const extraFlags = (process.env.NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');

interface Target {
  path: string;
  headers: Record<string, string>;
  body: (stream: boolean) => string;
}

const chat = (url: string): Target & { url: string } => ({
  url,
  path: '/v1/chat/completions',
  headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
  body: chatBody,
});
const messages = (url: string): Target & { url: string } => ({
  url,
  path: '/v1/messages',
  headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
  body: (stream) =>
    JSON.stringify({
      model: 'bench-model',
      max_tokens: 64,
      stream,
      messages: [{ role: 'user', content: 'Hello' }],
    }),
});

/** CPU µs so far per thread name (summed over the threads of that name), from /proc schedstat. */
function threadCpu(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim();
      const nanoseconds = Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      byName.set(name, (byName.get(name) ?? 0) + nanoseconds / 1000);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

const dispatcher = new Agent({ connections: 8, keepAliveTimeout: 60_000 });
async function call(target: Target & { url: string }, stream: boolean): Promise<void> {
  const response = await request(`${target.url}${target.path}`, {
    method: 'POST',
    headers: target.headers,
    body: target.body(stream),
    dispatcher,
  });
  await response.body.dump();
  if (response.statusCode !== 200) throw new Error(`${target.path}: HTTP ${response.statusCode}`);
}

// TurboFan prints `completed compiling` and then `completed optimizing` for one job: count the first.
const optimized = (line: string) => line.includes('[completed compiling');
const deoptimized = (line: string) => line.includes('bailout (kind: deopt');
const dependent = (line: string) => line.includes('marking dependent code');
const fnName = (line: string) =>
  /<JSFunction (.*?) ?\(sfi/.exec(line)?.[1] ||
  /<SharedFunctionInfo ?([^>]*)>/.exec(line)?.[1] ||
  '(anonymous)';
const reason = (line: string) =>
  /reason: ([^)]*)\)/.exec(line)?.[1] ?? /reason: (.*?)]?$/.exec(line)?.[1] ?? '?';
const target = (line: string) => /\(target ([A-Z]+)\)/.exec(line)?.[1] ?? '';

/** Counts of a list of keys, most frequent first, as `key ×n`. */
function tally(keys: string[]): string {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts]
    .sort((left, right) => right[1] - left[1])
    .slice(0, show)
    .map(([key, count]) => `${key} ×${count}`)
    .join('; ');
}

const upstream = await startUpstream();
console.log(
  `${warmup} warm-up calls (half streamed, 8 at a time), then phases of ${calls} sequential calls; events per 1,000 calls`,
);
for (const [name, script] of [
  ['switchyard', 'gateway-server.ts'],
  ['floor', 'gateway-floor-server.ts'],
] as const) {
  if (only !== undefined && only !== name) continue;
  const server = await traced(script, upstream.url, extraFlags);
  const targets = name === 'switchyard' ? [chat(server.url), messages(server.url)] : [chat(server.url)];
  for (const warmTarget of targets)
    await Promise.all(
      Array.from({ length: 8 }, async (_, lane) => {
        for (let index = lane; index < warmup; index += 8) await call(warmTarget, index % 2 === 0);
      }),
    );
  await sleep(500);
  const phases: Array<[string, (index: number) => Promise<void>]> = [
    ['non-streamed', () => call(targets[0]!, false)],
    ['streamed', () => call(targets[0]!, true)],
    ['warm-up mix', (index) => call(targets[index % targets.length]!, Math.floor(index / 2) % 2 === 0)],
  ];
  for (const [phase, run] of phases) {
    const from = server.lines.length;
    const cpuBefore = threadCpu(server.pid);
    // Where each block of 1,000 calls ends in the trace: a phase's events early on are a transition
    // (the phase's new mix of work), events in every block are churn.
    const ends: number[] = [];
    for (let index = 0; index < calls; index++) {
      await run(index);
      if ((index + 1) % 1000 === 0) ends.push(server.lines.length);
    }
    // Compilations the phase started finish on V8's threads: let them land in this phase.
    await sleep(300);
    const cpuAfter = threadCpu(server.pid);
    const lines = server.lines.slice(from);
    const per1000 = (count: number) => ((count * 1000) / calls).toFixed(1);
    const done = lines.filter(optimized);
    const undone = lines.filter(deoptimized);
    const marked = lines.filter(dependent);
    const cpu = [...cpuAfter]
      .map(([thread, micros]): [string, number] => [thread, (micros - (cpuBefore.get(thread) ?? 0)) / calls])
      .filter(([, micros]) => micros >= 0.05)
      .sort((left, right) => right[1] - left[1])
      .map(([thread, micros]) => `${thread} ${micros.toFixed(1)}`)
      .join(', ');
    console.log(
      `${name.padEnd(11)} ${phase.padEnd(13)} optimized ${per1000(done.length).padStart(6)}  deoptimized ${per1000(undone.length).padStart(6)}  ` +
        `code marked for deopt ${per1000(marked.length).padStart(6)}   CPU µs/call by thread: ${cpu}`,
    );
    const blocks = ends.map((end, block) => {
      const slice = server.lines.slice(block === 0 ? from : ends[block - 1], end);
      return `${slice.filter(optimized).length}/${slice.filter(deoptimized).length}`;
    });
    console.log(`    per block of 1,000 calls, optimized/deoptimized: ${blocks.join(' ')}`);
    if (done.length > 0)
      console.log(`    optimized: ${tally(done.map((line) => `${fnName(line)} ${target(line)}`))}`);
    if (undone.length > 0)
      console.log(`    deoptimized: ${tally(undone.map((line) => `${fnName(line)} (${reason(line)})`))}`);
    if (marked.length > 0) console.log(`    marked: ${tally(marked.map((line) => reason(line)))}`);
  }
  if (traceFile !== undefined) writeFileSync(`${traceFile}.${name}`, server.lines.join('\n'));
  server.stop();
}
upstream.close();
await dispatcher.close();
