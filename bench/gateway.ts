/**
 * Gateway overhead, side by side in one run: a mock OpenAI Chat upstream called directly, through
 * the Switchyard gateway and through @portkey-ai/gateway 1.15.2 (bench/package.json pins its
 * @hono/node-server to 1.14.1: its issue #1389). Non-streamed and streamed (time to first byte and
 * to the end), sequential and at an evenly spaced fixed rate (500 and 1,000 requests/s); added
 * latency = contender − direct, p50 and p99; then the gateways' CPU per streamed call (10 tokens) and
 * per extra token (the slope from 10 to 110 tokens) for a cross-protocol stream (Anthropic client ←
 * OpenAI upstream) and a same-protocol one, beside the parse floor (decoding the upstream stream
 * in-process: the least any proxy that reads it must spend); then 1,000 concurrent streams through each gateway, every output checked exactly, and peak RSS.
 * A bare Node proxy (gateway-floor-server.ts: Node's server, JSON in and out, undici to the upstream, a
 * stream piped through) runs beside them: the added latency no gateway in Node goes below here.
 * Run: `npm run bench:gateway`, or `cd bench && npm install && node gateway.ts` (WARMUP, SEQUENTIAL, SECONDS, RATES,
 * RATE_ROUNDS, ROUND_WARMUP, STREAMED, CONCURRENT override the sizes; `UPSTREAM=process` runs the mock
 * upstream in a process of its own instead of this one, so a direct call crosses processes too).
 * `node bench/gateway.ts --state [--rps 1000] [--seconds 3]` runs gateway-state.ts instead: what the
 * Redis state store adds to a gateway request over the memory store.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import {
  type Child,
  chatBody,
  chatStreamText,
  expectedText,
  here,
  longTokens,
  peakRss,
  startChild,
  startUpstream,
  startUpstreamProcess,
  threadCpuMicros,
  tokens,
} from './gateway-rig.ts';

const sequential = Number(process.env.SEQUENTIAL ?? 1000);
const seconds = Number(process.env.SECONDS ?? 2);
const rates = (process.env.RATES ?? '500,1000')
  .split(',')
  .map(Number)
  .filter((rate) => rate > 0);
const concurrent = Number(process.env.CONCURRENT ?? 1000);
/** Rounds of each fixed-rate row (each contender runs `seconds / rateRounds` per round). */
const rateRounds = Number(process.env.RATE_ROUNDS ?? 4);
/** Uncounted calls at the start of each sequential round (see `sequentialRounds`). */
const roundWarmup = Number(process.env.ROUND_WARMUP ?? 100);
if (!Number.isInteger(rateRounds) || rateRounds < 1) throw new Error('RATE_ROUNDS: a whole number ≥ 1');

/** CPU µs per call to decode the upstream stream in-process: SSE framing plus one JSON.parse per event. */
function parseFloor(stream: string): number {
  const rounds = 20_000;
  const before = process.cpuUsage();
  for (let index = 0; index < rounds; index++) chatStreamText(stream);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / rounds;
}

/** `concurrent` streamed calls at once: how many arrived exactly, and the wall time. */
async function concurrentStreams(target: Target): Promise<{ exact: number; failed: number; ms: number }> {
  const agent = new Agent({ connections: concurrent, keepAliveTimeout: 60_000 });
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: concurrent }, async () => {
      const response = await request(`${target.url}${target.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...target.headers },
        body: target.body(true),
        dispatcher: agent,
      });
      const body = await response.body.text();
      return response.statusCode === 200 && chatStreamText(body) === expectedText;
    }),
  );
  const ms = performance.now() - started;
  await agent.close();
  const exact = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value).length;
  return { exact, failed: concurrent - exact, ms };
}

async function startPortkey(): Promise<Child> {
  const root = join(here, 'node_modules/@portkey-ai/gateway');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const entry = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0]!;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [join(root, entry), `--port=${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.resume();
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      await request(`http://127.0.0.1:${port}/`).then((response) => response.body.dump());
      return { url: `http://127.0.0.1:${port}`, process: child };
    } catch {
      await sleep(100);
    }
  }
  throw new Error('portkey did not start');
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  path: string;
  body(stream: boolean): string;
}

// Idle sockets are closed by this client after 2 s, before any contender's server closes them (Node's
// default: 5 s): with four contenders a fixed-rate row leaves a contender's sockets idle ~6 s, and a
// request sent on a socket the server is closing fails ("other side closed").
const dispatcher = new Agent({
  connections: 256,
  keepAliveTimeout: 2_000,
  keepAliveMaxTimeout: 2_000,
  pipelining: 1,
});

/** One call: milliseconds to the first body byte and to the end. */
async function call(target: Target, stream: boolean): Promise<{ first: number; end: number }> {
  const started = performance.now();
  const response = await request(`${target.url}${target.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: target.body(stream),
    dispatcher,
  });
  let first = 0;
  for await (const _chunk of response.body) if (first === 0) first = performance.now() - started;
  if (response.statusCode !== 200) throw new Error(`${target.name}: HTTP ${response.statusCode}`);
  return { first, end: performance.now() - started };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * `rate` calls per second, evenly spaced, for `duration` seconds, after half a second at the same
 * rate that is not counted (as the sequential rounds' lead-in: the calls after an idle pause run
 * slower, and a gateway under a steady rate is not coming out of one).
 */
async function load(
  target: Target,
  stream: boolean,
  rate: number,
  duration: number,
): Promise<{ first: number[]; end: number[] }> {
  const first: number[] = [];
  const end: number[] = [];
  const leadIn = Math.round(rate / 2);
  const count = leadIn + Math.round(rate * duration);
  const interval = 1000 / rate;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const wait = start + index * interval - performance.now();
    if (wait > 1) await sleep(wait);
    const counted = index >= leadIn;
    pending.push(
      call(target, stream).then((timing) => {
        if (!counted) return;
        first.push(timing.first);
        end.push(timing.end);
      }),
    );
  }
  await Promise.all(pending);
  return { first, end };
}

/**
 * Sequential calls, the contenders interleaved in rounds of 200 so a change in machine load hits
 * them alike. Each round starts with `ROUND_WARMUP` (default 100) calls that are not counted: on
 * this VM a process that sat idle while the others ran answers its next calls slower (after a
 * 1.4 s pause, ~1.7× for the next 150–200, the bare proxy as much as the gateway: `IDLE_MS=1400
 * node gateway-warmup.ts`), and a sequential client calling back to back never leaves it idle.
 * 300 (more than that decay) read the same as 100 in two runs of 2026-11-28 (bench/README.md).
 */
async function sequentialRounds(
  targets: Target[],
  stream: boolean,
): Promise<Array<{ first: number[]; end: number[] }>> {
  const results = targets.map(() => ({ first: [] as number[], end: [] as number[] }));
  for (let done = 0; done < sequential; done += 200)
    for (const [index, target] of targets.entries()) {
      for (let step = 0; step < roundWarmup; step++) await call(target, stream);
      for (let step = 0; step < Math.min(200, sequential - done); step++) {
        const timing = await call(target, stream);
        results[index]!.first.push(timing.first);
        results[index]!.end.push(timing.end);
      }
    }
  return results;
}

const format = (value: number) => value.toFixed(2).padStart(7);
/** `ours ÷ theirs`, or `n/a` when there is nothing to divide by (an empty row). */
const ratio = (ours: number, theirs: number) => (theirs > 0 ? (ours / theirs).toFixed(2) : 'n/a');

/** The rows of one load (sequential or a rate): added p50/p99 of each contender over direct. */
function printRows(
  stream: boolean,
  rate: number | undefined,
  results: Array<{ first: number[]; end: number[] }>,
): void {
  const metrics: Array<'first' | 'end'> = stream ? ['first', 'end'] : ['end'];
  for (const metric of metrics) {
    const [direct, ours, theirs, bare] = results.map((result) => [
      percentile(result[metric], 50),
      percentile(result[metric], 99),
    ]);
    const added = (row: number[]) => [row[0]! - direct![0]!, row[1]! - direct![1]!];
    const [ourP50, ourP99] = added(ours!);
    const [theirP50, theirP99] = added(theirs!);
    const [floorP50, floorP99] = added(bare!);
    const label = `${stream ? `stream ${metric === 'first' ? 'TTFB' : 'end '}` : 'whole      '} ${rate === undefined ? 'sequential' : `${rate}/s      `}`;
    console.log(
      `${label.padEnd(28)} ${format(direct![0]!)} ${format(direct![1]!)}   ${format(ourP50!)} ${format(ourP99!)}     ${format(theirP50!)} ${format(theirP99!)}   ${ratio(ourP50!, theirP50!)} / ${ratio(ourP99!, theirP99!)}   ${format(floorP50!)} ${format(floorP99!)}`,
    );
  }
}

async function main(): Promise<void> {
  const upstream = process.env.UPSTREAM === 'process' ? await startUpstreamProcess() : await startUpstream();
  const switchyard = await startChild('gateway-server.ts', upstream.url);
  const floor = await startChild('gateway-floor-server.ts', upstream.url);
  const portkey = await startPortkey();
  const targets: Target[] = [
    {
      name: 'direct',
      url: upstream.url,
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer k' },
      body: chatBody,
    },
    {
      name: 'switchyard',
      url: switchyard.url,
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer k' },
      body: chatBody,
    },
    {
      name: 'portkey',
      url: portkey.url,
      path: '/v1/chat/completions',
      headers: {
        authorization: 'Bearer k',
        'x-portkey-provider': 'openai',
        'x-portkey-custom-host': `${upstream.url}/v1`,
      },
      body: chatBody,
    },
    {
      name: 'floor',
      url: floor.url,
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer k' },
      body: chatBody,
    },
  ];
  const cross: Target = {
    name: 'switchyard anthropic←openai',
    url: switchyard.url,
    path: '/v1/messages',
    headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    body: (stream) =>
      JSON.stringify({
        model: 'bench-model',
        max_tokens: 64,
        stream,
        messages: [{ role: 'user', content: 'Hello' }],
      }),
  };
  // Steady state, as a long-running gateway is. V8 keeps tiering a server's once-per-request code up
  // to optimized code for tens of thousands of requests: `node gateway-tierup.ts` counts the
  // functions it still compiles per 5,000 calls (the gateway 71, 142, 19, 65, 11, 6 and 0 in the
  // blocks from 5,000 to 40,000; the bare proxy 38, 61, 6, 21, 1, 2, 2), and the compilers share the
  // two cores with the calls. So each contender first serves `warmup` calls, half streamed, 8 at a
  // time (Portkey holds every stream ~25 ms), then 200 sequential ones.
  const warmup = Number(process.env.WARMUP ?? 40_000);
  for (const target of [...targets, cross])
    await Promise.all(
      Array.from({ length: 8 }, async (_, lane) => {
        for (let index = lane; index < warmup; index += 8) await call(target, index % 2 === 0);
      }),
    );
  for (const target of [...targets, cross])
    for (let index = 0; index < 200; index++) await call(target, index % 2 === 0);
  console.log(
    'added latency over calling the upstream directly (ms), p50 / p99; ratio = switchyard added ÷ portkey added; floor = a bare Node proxy (gateway-floor-server.ts)',
  );
  const header = () =>
    console.log(
      'row                          direct p50/p99     switchyard +p50/+p99   portkey +p50/+p99   ratio p50/p99   floor +p50/+p99',
    );
  header();
  // The sequential rows first: an overloaded contender at a fixed rate (Portkey at 1,000/s) keeps
  // the machine busy after its row, and a sequential row after it measured 0.3–0.4 ms more.
  for (const stream of [false, true]) printRows(stream, undefined, await sequentialRounds(targets, stream));
  const streamed = Number(process.env.STREAMED ?? 2000);
  const perRound = Math.max(1, Math.ceil(streamed / 4));
  // CPU per streamed call (10 tokens) and per extra token (the slope from 10 to 110 tokens), in rounds.
  const longer = (target: Target): Target => ({
    ...target,
    body: (stream) => target.body(stream).replace('"max_tokens":64', '"max_tokens":1000'),
  });
  for (const [label, target, child] of [
    ['switchyard chat←openai', targets[1]!, switchyard],
    ['switchyard anthropic←openai', cross, switchyard],
    ['portkey chat←openai', targets[2]!, portkey],
    ['floor chat←openai (piped)', targets[3]!, floor],
  ] as const) {
    const used = [0, 0];
    for (let round = 0; round < 4; round++)
      for (const [index, each] of [target, longer(target)].entries()) {
        const before = threadCpuMicros(child.process.pid!);
        for (let step = 0; step < perRound; step++) await call(each, true);
        used[index]! += threadCpuMicros(child.process.pid!) - before;
      }
    const [short, long] = used.map((total) => total / (perRound * 4));
    console.log(
      `${label.padEnd(30)} CPU ${short!.toFixed(0)} µs per streamed call (${tokens} tokens), ${((long! - short!) / (longTokens - tokens)).toFixed(1)} µs per extra token`,
    );
  }
  const floorShort = parseFloor(upstream.stream);
  const floorLong = parseFloor(upstream.longStream);
  console.log(
    `parse floor (decode the upstream stream in-process) ${floorShort.toFixed(0)} µs per call (${tokens} tokens), ${((floorLong - floorShort) / (longTokens - tokens)).toFixed(2)} µs per extra token`,
  );
  // The fixed-rate rows: the contenders interleaved in rounds (as the sequential rows: a change in
  // machine load, which moves every figure 2–3× from one run to the next here, hits them alike),
  // `seconds` counted per contender in all; each run after a 1 s pause (the previous run's calls
  // have all returned: an overloaded contender's backlog is drained).
  if (rates.length > 0) header();
  for (const stream of [false, true])
    for (const rate of rates) {
      const results = targets.map(() => ({ first: [] as number[], end: [] as number[] }));
      for (let round = 0; round < rateRounds; round++)
        for (const [index, target] of targets.entries()) {
          await sleep(1000);
          const { first, end } = await load(target, stream, rate, seconds / rateRounds);
          results[index]!.first.push(...first);
          results[index]!.end.push(...end);
        }
      printRows(stream, rate, results);
    }
  for (const [label, target, child] of [
    ['switchyard', targets[1]!, switchyard],
    ['portkey', targets[2]!, portkey],
  ] as const) {
    const { exact, failed, ms } = await concurrentStreams(target);
    console.log(
      `${label}: ${concurrent} concurrent streams, ${exact} exact, ${failed} not, ${ms.toFixed(0)} ms; peak RSS so far ${peakRss(child.process.pid!).toFixed(0)} MB`,
    );
  }
  switchyard.process.stdin!.end();
  floor.process.stdin!.end();
  portkey.process.kill('SIGTERM');
  upstream.close();
  await dispatcher.close();
}

// `--state`: what the Redis state store adds through a gateway process (issue #21's bench, gateway-state.ts).
if (process.argv.includes('--state')) await import('./gateway-state.ts');
else await main();
