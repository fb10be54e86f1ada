import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { chatBody, here, startUpstream, waitForLine } from './gateway-rig.ts';
const rate = Number(process.env.RATE ?? 1000), seconds = Number(process.env.SECS ?? 5);
const upstream = await startUpstream();
const flags = (process.env.FLAGS ?? '--trace-gc').split(' ').filter(Boolean);
const child = spawn(process.execPath, [...flags, join(here, 'gateway-server.ts'), upstream.url], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines: string[] = [];
const [, url] = await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+)\n/);
child.stdout!.setEncoding('utf8');
child.stdout!.on('data', (c: string) => lines.push(...c.split('\n')));
const dispatcher = new Agent({ connections: 256, keepAliveTimeout: 2000, keepAliveMaxTimeout: 2000, pipelining: 1 });
async function call(): Promise<number> {
  const started = performance.now();
  const r = await request(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: chatBody(true), dispatcher });
  let first = 0;
  for await (const _ of r.body) if (first === 0) first = performance.now() - started;
  return first;
}
for (let i = 0; i < 20000; i++) await call();
const t0 = performance.now();
const firsts: Array<[number, number]> = [];
const count = rate * seconds, interval = 1000 / rate, start = performance.now();
const pending: Promise<void>[] = [];
lines.length = 0;
const gcStart = performance.now();
for (let i = 0; i < count; i++) {
  const wait = start + i * interval - performance.now();
  if (wait > 1) await sleep(wait);
  const at = performance.now() - start;
  pending.push(call().then((f) => { firsts.push([at, f]); }));
}
await Promise.all(pending);
const sorted = firsts.map((x) => x[1]).sort((a, b) => a - b);
const p = (q: number) => sorted[Math.floor(q * sorted.length)]!.toFixed(2);
console.log(`rate ${rate}/s: TTFB p50 ${p(0.5)} p90 ${p(0.9)} p99 ${p(0.99)} max ${sorted.at(-1)!.toFixed(2)}`);
const slow = firsts.filter((x) => x[1] > 10).map((x) => `${x[0].toFixed(0)}:${x[1].toFixed(0)}`);
console.log(`slow (>10ms) at ms:ttfb: ${slow.length}`, slow.slice(0, 60).join(' '));
const gcs = lines.filter((l) => /Mark-Compact|Scavenge|Minor/.test(l));
console.log(`GC lines: ${gcs.length}; mark-compact:`); for (const l of gcs.filter((l) => /Mark-Compact/.test(l))) console.log(l);
const big = gcs.filter((l) => { const m = l.match(/, ([\d.]+) \/ [\d.]+ ms/); return m && Number(m[1]) > 3; });
console.log('GCs over 3 ms:'); for (const l of big.slice(0, 20)) console.log(l);
child.stdin!.end(); child.kill(); await dispatcher.close(); upstream.close?.(); process.exit(0);
