/**
 * Where a non-streamed call's time goes in the gateway, beside the bare Node proxy (issue #20): both
 * servers (`gateway-server.ts`, `gateway-floor-server.ts`) run on the mock upstream of
 * `gateway-rig.ts` with `gateway-timeline-hook.ts` loaded, which reads each call's steps from Node's
 * and undici's diagnostics channels — the request's arrival, the upstream request made, its headers
 * written, the upstream's response headers and end, the client's response finished (handed to the
 * socket). After `WARM` sequential calls each, `CALLS` counted ones, interleaved in rounds of 200;
 * printed: the median offset of each step (µs from the request's arrival) and the segments between.
 *
 *     node bench/gateway-timeline.ts           # WARM=20000 CALLS=4000
 *     GAP_MS=2 node bench/gateway-timeline.ts  # counted calls 2 ms apart: each arrives at an idle server (as at 500/s)
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'undici';
import { chatBody, here, startUpstream, waitForLine } from './gateway-rig.ts';

const warm = Number(process.env.WARM ?? 20_000);
const calls = Number(process.env.CALLS ?? 4000);
const round = 200;
/** Idle time before each counted call (`GAP_MS`), so it arrives at an idle server as at a fixed rate. */
const gapMs = Number(process.env.GAP_MS ?? 0);

const upstream = await startUpstream();
const dispatcher = new Agent({ connections: 4 });
const servers = await Promise.all(
  [
    ['switchyard', 'gateway-server.ts'],
    ['floor', 'gateway-floor-server.ts'],
  ].map(async ([label, script]) => {
    const child = spawn(
      process.execPath,
      ['--import', `${here}/gateway-timeline-hook.ts`, `${here}/${script}`, upstream.url],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const [, url] = await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+)\n/);
    return { label: label!, url: url!, child };
  }),
);

async function call(url: string): Promise<void> {
  const response = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: chatBody(false),
    dispatcher,
  });
  await response.body.text();
}

for (const { url } of servers) for (let index = 0; index < warm; index++) await call(url);
for (const { child } of servers) child.stdin!.write('timeline-reset\n');
for (let done = 0; done < calls; done += round)
  for (const { url } of servers)
    for (let index = 0; index < round; index++) {
      if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
      await call(url);
    }

const timelines = await Promise.all(
  servers.map(async ({ child }) => {
    const reading = waitForLine(child, /timeline (.*)\n/);
    child.stdin!.write('timeline\n');
    const [, json] = await reading;
    return JSON.parse(json!) as { calls: number; medians: number[]; steps: string[] };
  }),
);
const [gateway, floor] = timelines as [(typeof timelines)[0], (typeof timelines)[0]];
console.log(
  `median µs from the request's arrival (${gateway.calls} / ${floor.calls} calls; segment = since the step before)`,
);
console.log(
  `${'step'.padEnd(30)} ${'switchyard'.padStart(10)} ${'segment'.padStart(8)} ${'floor'.padStart(8)} ${'segment'.padStart(8)}`,
);
for (const [index, step] of gateway.steps.entries()) {
  const segment = (medians: number[]) => (index === 0 ? 0 : medians[index]! - medians[index - 1]!);
  console.log(
    `${step.padEnd(30)} ${gateway.medians[index]!.toFixed(0).padStart(10)} ${segment(gateway.medians).toFixed(0).padStart(8)} ${floor.medians[index]!.toFixed(0).padStart(8)} ${segment(floor.medians).toFixed(0).padStart(8)}`,
  );
}
for (const { child } of servers) child.stdin!.end();
upstream.close();
await dispatcher.close();
