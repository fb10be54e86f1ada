/**
 * How many calls the gateway serves before V8 stops optimizing its code: each server
 * (`gateway-server.ts`, `gateway-floor-server.ts`) runs with `--trace-opt --trace-deopt`
 * on the mock upstream of `gateway-rig.ts`; sequential calls (alternately non-streamed and
 * streamed, as bench/gateway.ts warms up) in blocks of `BLOCK`; per block, the functions
 * V8 finished optimizing (Maglev, TurboFan) and the deoptimizations. A block with compilations
 * is not steady state: the optimizing compilers run on the machine's two cores beside the calls.
 * This is what sets `WARMUP` in bench/gateway.ts.
 *
 *     node bench/gateway-tierup.ts            # 8 blocks of 5,000 calls
 *     BLOCKS=4 BLOCK=2500 SHOW=1 node bench/gateway-tierup.ts   # SHOW=1 names the late ones
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { chatBody, startUpstream, traced } from './gateway-rig.ts';

const blocks = Number(process.env.BLOCKS ?? 8);
const block = Number(process.env.BLOCK ?? 5000);
const show = process.env.SHOW === '1';

const optimized = (line: string) => line.includes('completed compiling');
const deoptimized = (line: string) => line.includes('bailout (kind: deopt');
const named = (line: string) => /<JSFunction ([^ >]*)/.exec(line)?.[1] || '(anonymous)';

const upstream = await startUpstream();
const dispatcher = new Agent({ connections: 8 });
console.log(`calls (in blocks of ${block})   functions optimized / deoptimized in the block`);
for (const script of ['gateway-server.ts', 'gateway-floor-server.ts']) {
  const server = await traced(script, upstream.url);
  const row: string[] = [];
  for (let index = 0; index < blocks; index++) {
    const from = server.lines.length;
    for (let step = 0; step < block; step++) {
      const response = await request(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: chatBody(step % 2 === 1),
        dispatcher,
      });
      await response.body.dump();
    }
    // The compilations a block started finish on V8's threads: let them land in this block.
    await sleep(200);
    const lines = server.lines.slice(from);
    const done = lines.filter(optimized);
    const undone = lines.filter(deoptimized);
    row.push(`${done.length}/${undone.length}`);
    if (show && index >= blocks / 2 && done.length + undone.length > 0)
      console.log(
        `  ${script} block ${index + 1}: optimized ${done.map(named).join(' ')}; deoptimized ${undone.map(named).join(' ')}`,
      );
  }
  console.log(`${script.replace('-server.ts', '').padEnd(24)} ${row.join('  ')}`);
  server.stop();
}
upstream.close();
await dispatcher.close();
