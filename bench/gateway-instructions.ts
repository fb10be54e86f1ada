/**
 * Instructions per gateway call (issue #20), beside the bare Node proxy: each server
 * (`gateway-server.ts`, `gateway-floor-server.ts`) runs under valgrind's callgrind on the
 * mock upstream of `gateway-rig.ts`, with the instrumentation off while it serves `GATEWAY_WARMUP`
 * sequential calls and on for the next `GATEWAY_CALLS`. Printed: instructions per call, and the
 * share of the optimizing compilers (TurboFan, Maglev): how far from its steady state V8 still is.
 * Instructions do not move with the machine's load (CPU time here moves by ±20–40 %); they are
 * not time (cache misses are not counted). Use them to A/B a change to the gateway (`--tree=`
 * another checkout) and `gateway.ts` for milliseconds. Needs `valgrind`; ~1 min per
 * 10,000 calls.
 *
 *     node bench/gateway-instructions.ts                          # non-streamed, 25,000 warm-up calls
 *     GATEWAY_WARMUP=8000 STREAMED=1 node bench/gateway-instructions.ts --tree=/path/to/other/checkout
 *     GATEWAY_KEEP=/tmp/cg node bench/gateway-instructions.ts     # keep switchyard.out and floor.out there
 *     GATEWAY_ONLY=switchyard node bench/gateway-instructions.ts  # one server only
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { flag } from './fixed-cost-clients.ts';
import { chatBody, gatewayServerOf, startUpstream, waitForLine } from './gateway-rig.ts';
import { callgrindArgs } from './measure.ts';

const warmup = Number(process.env.GATEWAY_WARMUP ?? 25_000);
const calls = Number(process.env.GATEWAY_CALLS ?? 1000);
const streamed = process.env.STREAMED === '1';
// Flags for the servers' node, e.g. `--perf-basic-prof` (with GATEWAY_KEEP: /tmp/perf-<pid>.map names
// the JavaScript functions callgrind only knows by address).
const nodeFlags = (process.env.GATEWAY_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
const tree = flag('tree')?.[0] ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const servers: Array<[string, string]> = [
  ['switchyard', gatewayServerOf(tree)],
  ['floor', `${tree}/bench/gateway-floor-server.ts`],
].filter(([name]) => (process.env.GATEWAY_ONLY ?? name) === name) as Array<[string, string]>;

/** Self cost (instructions) per function, from callgrind's own annotator. */
function selfCosts(file: string): Array<[number, string]> {
  const text = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const rows: Array<[number, string]> = [];
  for (const line of text.split('\n')) {
    const match = /^\s*([\d,]+) \([^)]*\)\s+(.*)$/.exec(line);
    if (match !== null && !match[2]!.includes('PROGRAM TOTALS'))
      rows.push([Number(match[1]!.replaceAll(',', '')), match[2]!]);
  }
  return rows;
}

const isCompiler = (name: string) => /compiler::|maglev|turboshaft/i.test(name);

const upstream = await startUpstream();
const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
const body = chatBody(streamed);
const keep = process.env.GATEWAY_KEEP; // a directory: the callgrind outputs are left there for callgrind_annotate
const directory = keep ?? mkdtempSync(join(tmpdir(), 'gateway-instructions-'));
console.log(
  `${streamed ? 'streamed' : 'non-streamed'} calls: ${warmup} uncounted, then ${calls} counted (thousands of instructions per call)`,
);
try {
  for (const [name, script] of servers) {
    const file = join(directory, `${name}.out`);
    const child = spawn(
      'valgrind',
      [...callgrindArgs(file), process.execPath, ...nodeFlags, script, upstream.url],
      {
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    const [, url] = await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+)\n/);
    const call = async () => {
      const response = await request(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body,
        dispatcher,
      });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`${name}: HTTP ${response.statusCode}`);
    };
    for (let index = 0; index < warmup; index++) await call();
    execFileSync('callgrind_control', ['-i', 'on', String(child.pid)], { stdio: 'ignore' });
    for (let index = 0; index < calls; index++) await call();
    execFileSync('callgrind_control', ['-i', 'off', String(child.pid)], { stdio: 'ignore' });
    child.stdin!.end();
    await new Promise((resolve) => child.once('exit', resolve));
    if (keep !== undefined && existsSync(`/tmp/perf-${child.pid}.map`))
      copyFileSync(`/tmp/perf-${child.pid}.map`, join(directory, `${name}.map`));
    const totals = /^totals:\s+(\d+)/m.exec(readFileSync(file, 'utf8'));
    const total = Number(totals?.[1] ?? 0);
    const compiler = selfCosts(file)
      .filter(([, fn]) => isCompiler(fn))
      .reduce((sum, [cost]) => sum + cost, 0);
    const perCall = (value: number) => `${(value / calls / 1000).toFixed(0)}k`;
    console.log(
      `${name.padEnd(11)} ${perCall(total).padStart(6)}   of which the optimizing compilers ${perCall(compiler)}`,
    );
  }
} finally {
  upstream.close();
  await dispatcher.close();
  if (keep === undefined) rmSync(directory, { recursive: true, force: true });
}
