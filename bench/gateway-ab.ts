/**
 * Two checkouts' gateways side by side, in milliseconds: each tree's `bench/gateway-server.ts`
 * in its own process on one mock upstream (gateway-rig.ts), warmed with `WARM` calls (8 at a time),
 * then `ROUNDS` interleaved rounds of 200 counted sequential calls, each after 100 uncounted ones;
 * printed: each tree's added p50 and p90 over calling the upstream directly. `STREAM=1` streams
 * (time to the first body chunk; `END=1` to the end). Run it in both orders: the machine moves
 * between rounds. The instruction counts of the same A/B: `gateway-instructions.ts --tree=`.
 *
 *     node bench/gateway-ab.ts /path/to/checkout-a /path/to/checkout-b
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'undici';
import { chatBody, gatewayServerOf, startUpstream, waitForLine } from './gateway-rig.ts';

const trees = process.argv.slice(2);
if (trees.length === 0) throw new Error('usage: node bench/gateway-ab.ts <checkout> [<checkout> …]');
const stream = process.env.STREAM === '1';
const toEnd = process.env.END === '1';
const warm = Number(process.env.WARM ?? 40_000);
const rounds = Number(process.env.ROUNDS ?? 20);

const upstream = await startUpstream();
const children = await Promise.all(
  trees.map(async (tree) => {
    const child = spawn(process.execPath, [gatewayServerOf(tree), upstream.url], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const [, url] = await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+)\n/);
    return { url: url!, child };
  }),
);
const dispatcher = new Agent({ connections: 16 });

/** One call: ms to the first body chunk, or to the end with `END=1`. */
async function call(url: string): Promise<number> {
  const started = performance.now();
  const response = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    body: chatBody(stream),
    dispatcher,
  });
  let first = 0;
  for await (const _chunk of response.body) if (first === 0) first = performance.now() - started;
  // A failed call is no timing: the run stops saying so.
  if (response.statusCode !== 200) throw new Error(`${url}: HTTP ${response.statusCode}`);
  return toEnd ? performance.now() - started : first;
}

for (const { url } of children)
  await Promise.all(
    Array.from({ length: 8 }, async (_, lane) => {
      for (let index = lane; index < warm; index += 8) await call(url);
    }),
  );
const urls = [upstream.url, ...children.map((child) => child.url)];
const timings = urls.map(() => [] as number[]);
for (let round = 0; round < rounds; round++)
  for (const [index, url] of urls.entries()) {
    for (let step = 0; step < 100; step++) await call(url);
    for (let step = 0; step < 200; step++) timings[index]!.push(await call(url));
  }
const percentile = (values: number[], p: number) =>
  [...values].sort((left, right) => left - right)[Math.floor(p * values.length)] ?? 0;
const direct = timings[0]!;
console.log(
  `${stream ? (toEnd ? 'streamed, to the end' : 'streamed, first byte') : 'non-streamed'}: direct p50 ${percentile(direct, 0.5).toFixed(3)} ms`,
);
for (const [index, tree] of trees.entries()) {
  const own = timings[index + 1]!;
  const p50 = percentile(own, 0.5) - percentile(direct, 0.5);
  const p90 = percentile(own, 0.9) - percentile(direct, 0.9);
  console.log(`${tree}  added p50 ${p50.toFixed(3)} ms, p90 ${p90.toFixed(3)} ms`);
}
for (const { child } of children) child.stdin!.end();
await dispatcher.close();
upstream.close();
