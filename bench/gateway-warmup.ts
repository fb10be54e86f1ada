/**
 * How long the gateway takes to reach its steady state, beside the bare Node proxy
 * (gateway-floor-server.ts), both started fresh on the mock upstream of bench/gateway.ts.
 *
 * - Default: sequential calls in blocks of 1,000 (alternately non-streamed and streamed), each
 *   contender in turn; per block, the p50 of each kind and the process's CPU per call (all threads,
 *   from /proc). V8 tiers a server's once-per-request code up to optimized code over thousands of
 *   requests, so the first blocks are slower.
 * - `IDLE_MS=1400`: after `WARMUP` calls (default 10,000), rounds of 300 sequential calls each after
 *   an idle pause of IDLE_MS; the p50 per position (in steps of 25) in the round: how long a process
 *   that sat idle stays slower once calls resume.
 *
 * Run: `cd bench && node gateway-warmup.ts` (BLOCKS, ROUNDS, WARMUP, IDLE_MS override the sizes;
 * STREAMED=1 makes the rounds after an idle pause streamed calls).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { type Child, chatBody, startChild, startUpstream, threadCpuMicros } from './gateway-rig.ts';
import { median } from './measure.ts';

const blocks = Number(process.env.BLOCKS ?? 12);
const rounds = Number(process.env.ROUNDS ?? 10);
const warmup = Number(process.env.WARMUP ?? 10_000);
const idleMs = Number(process.env.IDLE_MS ?? 0);
const streamed = process.env.STREAMED === '1';
const dispatcher = new Agent({ connections: 8 });

/** One call's milliseconds, to the end of the body. */
async function call(url: string, stream: boolean): Promise<number> {
  const started = performance.now();
  const response = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: chatBody(stream),
    dispatcher,
  });
  await response.body.text();
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
  return performance.now() - started;
}

const ms = (value: number) => value.toFixed(3);

/** Blocks of 1,000 calls from fresh processes: p50 whole / streamed and CPU per call, block by block. */
async function warmupCurve(contenders: Array<[string, Child]>): Promise<void> {
  console.log(
    'calls   ' +
      contenders.map(([name]) => `${name}: p50 whole / streamed (ms), CPU µs per call`).join('   '),
  );
  for (let block = 1; block <= blocks; block++) {
    const cells: string[] = [];
    for (const [, child] of contenders) {
      const whole: number[] = [];
      const streamedTimes: number[] = [];
      const before = threadCpuMicros(child.process.pid!);
      for (let index = 0; index < 1000; index++)
        (index % 2 === 0 ? whole : streamedTimes).push(await call(child.url, index % 2 === 1));
      const cpu = (threadCpuMicros(child.process.pid!) - before) / 1000;
      cells.push(`${ms(median(whole))} / ${ms(median(streamedTimes))}, ${cpu.toFixed(0).padStart(4)}`);
    }
    console.log(`${String(block * 1000).padStart(6)}  ${cells.map((cell) => cell.padEnd(58)).join(' ')}`);
  }
}

/** After an idle pause, the p50 of each position (in steps of 25) of a round of 300 sequential calls. */
async function afterIdle(contenders: Array<[string, Child]>): Promise<void> {
  for (const [, child] of contenders)
    for (let index = 0; index < warmup; index++) await call(child.url, index % 2 === 1);
  console.log(
    `p50 (ms) of ${streamed ? 'streamed' : 'non-streamed'} calls 1–25, 26–50, … of a round, each round after ${idleMs} ms idle; ${rounds} rounds`,
  );
  for (const [name, child] of contenders) {
    const positions: number[][] = Array.from({ length: 12 }, () => []);
    for (let round = 0; round < rounds; round++) {
      await sleep(idleMs);
      for (let index = 0; index < 300; index++)
        positions[Math.floor(index / 25)]!.push(await call(child.url, streamed));
    }
    console.log(`${name.padEnd(12)} ${positions.map((times) => ms(median(times))).join(' ')}`);
  }
}

const upstream = await startUpstream();
const contenders: Array<[string, Child]> = [
  ['switchyard', await startChild('gateway-server.ts', upstream.url)],
  ['floor', await startChild('gateway-floor-server.ts', upstream.url)],
];
if (idleMs > 0) await afterIdle(contenders);
else await warmupCurve(contenders);
for (const [, child] of contenders) child.process.stdin!.end();
upstream.close();
await dispatcher.close();
