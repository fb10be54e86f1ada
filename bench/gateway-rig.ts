/**
 * The rig the gateway benchmarks share: a mock OpenAI Chat upstream whose bodies the production
 * codec writes, contenders started as child processes, and /proc probes of their CPU and memory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { codecs } from '../src/codecs/index.ts';
import { serializeFrame } from '../src/codecs/frames.ts';
import type { StreamEvent } from '../src/core/events.ts';
import { createRequestId } from '../src/core/ids.ts';
import { decodeSseText } from '../src/transport/sse.ts';
import type { CanonicalResponse } from '../src/core/request.ts';

export const here = dirname(fileURLToPath(import.meta.url));

/**
 * The gateway-server script of another checkout (`--tree=`, A/B runs): `bench/gateway-server.ts`,
 * named `bench/gateway-portkey-server.ts` before 2026-11-29.
 */
export function gatewayServerOf(tree: string): string {
  const script = `${tree}/bench/gateway-server.ts`;
  return existsSync(script) ? script : `${tree}/bench/gateway-portkey-server.ts`;
}
/** Tokens in the upstream's everyday reply, and in its long one (a request for 1,000 output tokens). */
export const tokens = 10;
export const longTokens = 110;
export const expectedText = Array.from({ length: tokens }, (_, index) => `word${index} `).join('');

/** A client's OpenAI Chat request for `bench-model` (the contenders' alias of the upstream's model). */
export const chatBody = (stream: boolean) =>
  JSON.stringify({
    model: 'bench-model',
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 64,
    stream,
  });

/** The mock upstream's two bodies, encoded once by the production Chat codec. */
export function upstreamBodies(count = tokens): { whole: string; stream: string } {
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

export async function startUpstream(): Promise<{
  url: string;
  stream: string;
  longStream: string;
  close(): void;
}> {
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

/**
 * The same mock upstream in a child process (gateway-upstream-server.ts), as a real upstream is: a
 * call to it, direct or through a contender, crosses processes as it would in production.
 */
export async function startUpstreamProcess(): Promise<{
  url: string;
  stream: string;
  longStream: string;
  pid: number;
  close(): void;
}> {
  const child = await startChild('gateway-upstream-server.ts', '');
  return {
    url: child.url,
    stream: upstreamBodies().stream,
    longStream: upstreamBodies(longTokens).stream,
    pid: child.process.pid!,
    close: () => child.process.stdin!.end(),
  };
}

/** The text of an OpenAI Chat stream, or undefined unless it ends with a `stop` finish and `[DONE]`. */
export function chatStreamText(body: string): string | undefined {
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

export interface Child {
  url: string;
  process: ChildProcess;
}

/** How long a child may take to print its line (`RIG_WAIT_SECONDS`: valgrind on a loaded host starts slowly). */
const waitMs = Number(process.env.RIG_WAIT_SECONDS ?? 60) * 1000;

export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in ${text}`)), waitMs);
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

export async function startChild(script: string, upstream: string): Promise<Child> {
  const child = spawn(process.execPath, [join(here, script), upstream], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [, url] = await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+)\n/);
  return { url: url!, process: child };
}

export function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return Number(line?.[1] ?? 0) / 1024;
}

/**
 * CPU time (µs) of a process, summed over its threads from /proc schedstat (ns resolution). A thread
 * that ends between two readings takes its time with it: fine for Node's long-lived threads.
 */
export function threadCpuMicros(pid: number): number {
  let nanoseconds = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return nanoseconds / 1000;
}

/**
 * One server (a script beside this file) under `--trace-opt --trace-deopt` and `flags`: its URL
 * (the first line it prints), its pid and every trace line so far; `stop` ends its stdin.
 */
export async function traced(
  script: string,
  upstream: string,
  flags: readonly string[] = [],
): Promise<{ url: string; pid: number; lines: string[]; stop(): void }> {
  const child = spawn(
    process.execPath,
    ['--trace-opt', '--trace-deopt', ...flags, join(here, script), upstream],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines: string[] = [];
  let url = '';
  let rest = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const line of parts)
      if (url === '' && /^http:\/\/127\.0\.0\.1:\d+$/.test(line)) url = line;
      else lines.push(line);
  });
  for (let attempt = 0; url === '' && attempt < 600; attempt++) await sleep(50);
  if (url === '') throw new Error(`${script} did not start`);
  return { url, pid: child.pid!, lines, stop: () => child.stdin!.end() };
}
