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
 * Run: `cd bench && npm install && node gateway-portkey.ts` (WARMUP, SEQUENTIAL, SECONDS, RATES, STREAMED,
 * CONCURRENT override the sizes).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { codecs } from '../src/codecs/index.ts';
import { serializeFrame } from '../src/codecs/frames.ts';
import type { StreamEvent } from '../src/core/events.ts';
import { createRequestId } from '../src/core/ids.ts';
import { decodeSseText } from '../src/transport/sse.ts';
import type { CanonicalResponse } from '../src/core/request.ts';

const here = dirname(fileURLToPath(import.meta.url));
const sequential = Number(process.env.SEQUENTIAL ?? 1000);
const seconds = Number(process.env.SECONDS ?? 2);
const rates = (process.env.RATES ?? '500,1000').split(',').map(Number);
const tokens = 10;
const longTokens = 110;
const concurrent = Number(process.env.CONCURRENT ?? 1000);
const expectedText = Array.from({ length: tokens }, (_, index) => `word${index} `).join('');

/** The mock upstream's two bodies, encoded once by the production Chat codec. */
function upstreamBodies(count = tokens): { whole: string; stream: string } {
  const words = Array.from({ length: count }, (_, index) => `word${index} `);
  const response: CanonicalResponse = {
    requestId: createRequestId(),
    model: 'gpt-4.1-mini',
    provider: 'openai',
    content: [{ type: 'text', text: words.join('') }],
    finishReason: 'completed',
    usage: { input: 12, cacheRead: 0, cacheWrite: 0, output: count, reasoning: 0 },
    latencyMs: 0,
  };
  const codec = codecs['openai-chat'];
  const encoder = codec.createStreamEncoder({ model: 'gpt-4.1-mini', streamUsage: true });
  const events: StreamEvent[] = [
    { type: 'message-start', requestId: response.requestId, model: 'gpt-4.1-mini', provider: 'openai' },
    { type: 'text-start', index: 0 },
    ...words.map((delta): StreamEvent => ({ type: 'text-delta', index: 0, delta })),
    { type: 'text-end', index: 0 },
    { type: 'finish', response },
  ];
  const stream = events
    .flatMap((event) => encoder.event(event))
    .map(serializeFrame)
    .join('');
  return { whole: JSON.stringify(codec.encodeResponse(response, { model: 'gpt-4.1-mini' })), stream };
}

async function startUpstream(): Promise<{ url: string; stream: string; longStream: string; close(): void }> {
  const bodies = upstreamBodies();
  // A request asking for 1,000 output tokens gets the long stream (the per-token CPU rows).
  const long = upstreamBodies(longTokens);
  const server = createServer((incoming, outgoing) => {
    let text = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk: string) => (text += chunk));
    incoming.on('end', () => {
      const streamed = text.includes('"stream":true');
      outgoing.writeHead(200, { 'content-type': streamed ? 'text/event-stream' : 'application/json' });
      const chosen = /"max_(completion_)?tokens":1000\b/.test(text) ? long : bodies;
      outgoing.end(streamed ? chosen.stream : chosen.whole);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stream: bodies.stream,
    longStream: long.stream,
    close: () => server.close(),
  };
}

/** The text of an OpenAI Chat stream, or undefined unless it ends with a `stop` finish and `[DONE]`. */
function chatStreamText(body: string): string | undefined {
  let text = '';
  let finish: unknown;
  const events = decodeSseText(body);
  if (events.at(-1)?.data !== '[DONE]') return undefined;
  for (const { data } of events.slice(0, -1)) {
    const chunk = JSON.parse(data) as {
      choices?: Array<{ delta?: { content?: string }; finish_reason?: unknown }>;
    };
    const choice = chunk.choices?.[0];
    text += choice?.delta?.content ?? '';
    finish = choice?.finish_reason ?? finish;
  }
  return finish === 'stop' ? text : undefined;
}

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

interface Child {
  url: string;
  process: ChildProcess;
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in ${text}`)), 60_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = text.match(pattern);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve(match);
    };
    child.stdout!.on('data', onData);
  });
}

async function startChild(script: string, upstream: string): Promise<Child> {
  const child = spawn(process.execPath, [join(here, script), upstream], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [, url] = await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+)\n/);
  return { url: url!, process: child };
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

/** CPU time (µs) of a process, from /proc (user + system, clock ticks of 10 ms → coarse; use long runs). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return Number(line?.[1] ?? 0) / 1024;
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
const chatBody = (stream: boolean) =>
  JSON.stringify({
    model: 'bench-model',
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 64,
    stream,
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

/** Sequential calls, or `rate` per second evenly spaced for `seconds`. */
async function load(
  target: Target,
  stream: boolean,
  rate?: number,
): Promise<{ first: number[]; end: number[] }> {
  const first: number[] = [];
  const end: number[] = [];
  const record = (timing: { first: number; end: number }) => {
    first.push(timing.first);
    end.push(timing.end);
  };
  if (rate === undefined) {
    for (let index = 0; index < sequential; index++) record(await call(target, stream));
    return { first, end };
  }
  const count = rate * seconds;
  const interval = 1000 / rate;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const wait = start + index * interval - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(call(target, stream).then(record));
  }
  await Promise.all(pending);
  return { first, end };
}

/** Sequential calls, the contenders interleaved in rounds of 50 so a change in machine load hits them alike. */
async function sequentialRounds(
  targets: Target[],
  stream: boolean,
): Promise<Array<{ first: number[]; end: number[] }>> {
  const results = targets.map(() => ({ first: [] as number[], end: [] as number[] }));
  for (let done = 0; done < sequential; done += 50)
    for (const [index, target] of targets.entries())
      for (let step = 0; step < Math.min(50, sequential - done); step++) {
        const timing = await call(target, stream);
        results[index]!.first.push(timing.first);
        results[index]!.end.push(timing.end);
      }
  return results;
}

const format = (value: number) => value.toFixed(2).padStart(7);

async function main(): Promise<void> {
  const upstream = await startUpstream();
  const switchyard = await startChild('gateway-portkey-server.ts', upstream.url);
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
  // Steady state, as a long-running gateway is: every contender's code warm (JIT-compiled) first.
  const warmup = Number(process.env.WARMUP ?? 1000);
  for (const target of targets)
    for (let index = 0; index < warmup; index++) await call(target, index % 2 === 0);
  console.log(
    'added latency over calling the upstream directly (ms), p50 / p99; ratio = switchyard added ÷ portkey added; floor = a bare Node proxy (gateway-floor-server.ts)',
  );
  console.log(
    'row                          direct p50/p99     switchyard +p50/+p99   portkey +p50/+p99   ratio p50/p99   floor +p50/+p99',
  );
  for (const stream of [false, true]) {
    for (const rate of [undefined, ...rates]) {
      const results = rate === undefined ? await sequentialRounds(targets, stream) : [];
      if (rate !== undefined) for (const target of targets) results.push(await load(target, stream, rate));
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
          `${label.padEnd(28)} ${format(direct![0]!)} ${format(direct![1]!)}   ${format(ourP50!)} ${format(ourP99!)}     ${format(theirP50!)} ${format(theirP99!)}   ${(ourP50! / theirP50!).toFixed(2)} / ${(ourP99! / theirP99!).toFixed(2)}   ${format(floorP50!)} ${format(floorP99!)}`,
        );
      }
    }
  }
  const streamed = Number(process.env.STREAMED ?? 2000);
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
        const before = cpuMicros(child.process.pid!);
        for (let step = 0; step < streamed / 4; step++) await call(each, true);
        used[index]! += cpuMicros(child.process.pid!) - before;
      }
    const [short, long] = used.map((total) => total / streamed);
    console.log(
      `${label.padEnd(30)} CPU ${short!.toFixed(0)} µs per streamed call (${tokens} tokens), ${((long! - short!) / (longTokens - tokens)).toFixed(1)} µs per extra token`,
    );
  }
  const floorShort = parseFloor(upstream.stream);
  const floorLong = parseFloor(upstream.longStream);
  console.log(
    `parse floor (decode the upstream stream in-process) ${floorShort.toFixed(0)} µs per call (${tokens} tokens), ${((floorLong - floorShort) / (longTokens - tokens)).toFixed(2)} µs per extra token`,
  );
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

await main();
