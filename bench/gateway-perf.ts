/**
 * Where a gateway call's CPU goes, by owner, beside the bare Node proxy (issue #20): each server
 * (`gateway-server.ts`, `gateway-floor-server.ts`) runs with `--perf-basic-prof` on the mock
 * upstream of `gateway-rig.ts`; after `WARM` sequential calls, Linux `perf record` samples its CPU
 * (cycles on every thread, not wall time: a process waiting is not sampled) for `CALLS` more. Each
 * sample is charged to the kernel when it was in the kernel, else to the nearest JavaScript frame
 * on its stack — a builtin or runtime function (`JSON.parse`, a property lookup, the GC it
 * triggered) counts for the JavaScript that called it — and that frame to its file. Printed per
 * server: µs of CPU per call, by owner (the repository's `src/` files one by one; Node's own
 * modules, undici, the kernel, V8 outside any JavaScript frame), and the top functions. Needs
 * `perf` (Linux, permission to profile a child); the sampling costs ~10 %, so read the shares and
 * the difference between the two servers, not the totals.
 *
 *     node bench/gateway-perf.ts                         # WARM=30000 CALLS=10000
 *     STREAM=1 TOP=40 node bench/gateway-perf.ts
 *     GAP_MS=2 CALLS=4000 node bench/gateway-perf.ts     # counted calls 2 ms apart: each arrives at an idle server (as at 500/s)
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { chatBody, here, startUpstream, waitForLine } from './gateway-rig.ts';

const warm = Number(process.env.WARM ?? 30_000);
const calls = Number(process.env.CALLS ?? 10_000);
const top = Number(process.env.TOP ?? 25);
const hertz = 10_000;
const streamed = process.env.STREAM === '1';

/** The owner of a JavaScript frame's symbol (`JS:*'name file:line:column`): its file, shortened. */
function ownerOf(symbol: string): string {
  const file = /\s(\S+?):\d+:\d+$/.exec(symbol)?.[1] ?? '';
  if (file === '') return 'other JavaScript';
  if (file.startsWith('node:')) return 'node (its own modules)';
  if (file.includes('/node_modules/undici/')) return 'undici';
  const source = /\/(src\/.*)$/.exec(file)?.[1];
  if (source !== undefined && !file.includes('/node_modules/')) return source;
  if (file.includes('/bench/')) return `bench/${file.split('/bench/')[1]}`;
  return 'other JavaScript';
}

/** One sample's charge: `[owner, function]`. */
function chargeOf(frames: string[]): [string, string] {
  const leaf = frames[0] ?? '';
  if (leaf.endsWith('([kernel.kallsyms])')) return ['kernel', leaf.split(' ')[1] ?? 'kernel'];
  for (const frame of frames) {
    const symbol = /^[0-9a-f]+ (JS:.*) \(\/tmp\/perf-\d+\.map\)$/.exec(frame)?.[1];
    if (symbol !== undefined) return [ownerOf(symbol), symbol.replace(/^JS:[*~+^]?'?/, '')];
  }
  return ['V8 and Node outside JavaScript (GC, libuv, start-up)', leaf.replace(/^[0-9a-f]+ /, '')];
}

const upstream = await startUpstream();
/** Idle time before each counted call (`GAP_MS`). */
const gapMs = Number(process.env.GAP_MS ?? 0);
const directory = mkdtempSync(join(tmpdir(), 'gateway-perf-'));
const body = chatBody(streamed);
try {
  for (const [label, script] of [
    ['switchyard', 'gateway-server.ts'],
    ['floor', 'gateway-floor-server.ts'],
  ] as const) {
    const child = spawn(process.execPath, ['--perf-basic-prof', `${here}/${script}`, upstream.url], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const [, url] = await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+)\n/);
    const dispatcher = new Agent({ connections: 1 });
    const call = async () => {
      const response = await request(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        dispatcher,
      });
      await response.body.text();
    };
    for (let index = 0; index < warm; index++) await call();
    const data = join(directory, `${label}.data`);
    const recorder = spawn(
      'perf',
      ['record', '-F', String(hertz), '-g', '-p', String(child.pid), '-o', data],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let index = 0; index < calls; index++) {
      if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
      await call();
    }
    recorder.kill('SIGINT');
    await new Promise((resolve) => recorder.once('exit', resolve));
    child.stdin!.end();
    await new Promise((resolve) => child.once('exit', resolve));
    await dispatcher.close();

    const text = execFileSync('perf', ['script', '-i', data, '-F', 'ip,sym,dso'], {
      encoding: 'utf8',
      maxBuffer: 1024 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const byOwner = new Map<string, number>();
    const byFunction = new Map<string, number>();
    let samples = 0;
    for (const block of text.split('\n\n')) {
      const frames = block
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '');
      if (frames.length === 0) continue;
      samples++;
      const [owner, name] = chargeOf(frames);
      byOwner.set(owner, (byOwner.get(owner) ?? 0) + 1);
      byFunction.set(name, (byFunction.get(name) ?? 0) + 1);
    }
    const perCall = (count: number) => ((count / hertz / calls) * 1e6).toFixed(1).padStart(7);
    console.log(
      `${label}: ${perCall(samples)} µs of CPU per ${streamed ? 'streamed' : 'non-streamed'} call (${samples} samples over ${calls} calls)`,
    );
    console.log('  by owner (µs per call):');
    for (const [owner, count] of [...byOwner].sort((left, right) => right[1] - left[1]))
      console.log(`  ${perCall(count)}  ${owner}`);
    console.log(`  top ${top} functions (µs per call, builtins and GC they call included):`);
    for (const [name, count] of [...byFunction].sort((left, right) => right[1] - left[1]).slice(0, top))
      console.log(`  ${perCall(count)}  ${name.slice(0, 110)}`);
  }
} finally {
  upstream.close();
  rmSync(directory, { recursive: true, force: true });
}
