/**
 * What a major GC between calls costs the optimized code (issue #20): per client of the fixed-cost
 * benchmark (`fixed-cost-clients.ts`), the functions V8 deoptimizes at a full GC because an object
 * their code embeds died ("embedded weak objects cleared" in `--trace-deopt`). Each function so
 * deoptimized runs unoptimized until it is hot again (some 500 calls for one run once per call).
 * Counts, unlike CPU time, do not move with the machine's load.
 *
 * One child process per protocol × client: a warm-up, then batches of calls, each after a full GC
 * (as `fixed-cost.ts` runs them); the child runs under `--trace-deopt` and this script counts the
 * deoptimizations each GC caused, and names the functions.
 *
 *     node bench/fixed-cost-deopts.ts                         # every protocol, raw + adapter
 *     node bench/fixed-cost-deopts.ts --protocol=openai --only=adapter,frontdoor
 *     DEOPTS_BATCHES=12 DEOPTS_CALLS=300 node bench/fixed-cost-deopts.ts
 */
import { spawnSync } from 'node:child_process';
import { writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type Client, flag, prepareRunner, startFixedCostUpstream } from './fixed-cost-clients.ts';
import { type Protocol, protocols } from './payloads.ts';

const events = 10;
const warmup = Number(process.env.DEOPTS_WARMUP ?? 1500);
const batches = Number(process.env.DEOPTS_BATCHES ?? 8);
const calls = Number(process.env.DEOPTS_CALLS ?? 300);
const marker = '--- full GC';

/** Child side: warm-up, then `batches` × (full GC, `calls` calls), the GCs marked on stdout. */
async function child(protocol: Protocol, client: Client): Promise<void> {
  const upstream = await startFixedCostUpstream(events);
  const { runner } = await prepareRunner(protocol, client, upstream.root, events);
  for (let index = 0; index < warmup; index++) await runner.run();
  for (let batch = 0; batch < batches; batch++) {
    // Written synchronously, as V8 writes its trace: console.log to a pipe is asynchronous.
    writeSync(1, `${marker} ${batch}\n`);
    (globalThis as { gc?: () => void }).gc?.();
    writeSync(1, `${marker} done\n`);
    for (let index = 0; index < calls; index++) await runner.run();
  }
  await runner.close();
  upstream.stop();
}

/** The functions deoptimized during each full GC of a child's output. */
function deoptsPerGc(output: string): string[][] {
  const perGc: string[][] = [];
  let current: string[] | undefined;
  for (const line of output.split('\n')) {
    if (line.startsWith(marker)) {
      current = line.endsWith('done') ? undefined : [];
      if (current !== undefined) perGc.push(current);
    } else if (current !== undefined && line.includes('embedded weak objects cleared')) {
      current.push(/<SharedFunctionInfo ?([^>]*)>/.exec(line)?.[1] || '(anonymous)');
    }
  }
  return perGc;
}

function main(): void {
  const only = (flag('only') ?? ['raw', 'adapter']) as Client[];
  const chosen = (flag('protocol') ?? protocols) as Protocol[];
  const here = fileURLToPath(import.meta.url);
  console.log(
    `Functions deoptimized by a full GC between batches ("embedded weak objects cleared"), ${warmup} warm-up calls, ` +
      `${batches} batches × ${calls} calls; load average ${loadavg()[0]!.toFixed(2)}`,
  );
  for (const protocol of chosen)
    for (const client of only) {
      const run = spawnSync(
        process.execPath,
        ['--expose-gc', '--trace-deopt', here, `--child=${protocol},${client}`],
        { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
      );
      if (run.status !== 0) throw new Error(`${protocol}/${client}: ${run.stderr}`);
      const perGc = deoptsPerGc(run.stdout);
      const later = perGc.slice(1).flat();
      const names = new Map<string, number>();
      for (const name of later) names.set(name, (names.get(name) ?? 0) + 1);
      const named = [...names].sort((left, right) => right[1] - left[1]).slice(0, 12);
      console.log(
        `${`${protocol} ${client}`.padEnd(28)} first GC ${String(perGc[0]?.length ?? 0).padStart(4)}, ` +
          `then per GC ${perGc
            .slice(1)
            .map((gc) => gc.length)
            .join(' ')}`,
      );
      if (named.length > 0)
        console.log(
          `${''.padEnd(28)} after the first: ${named.map(([name, count]) => `${name} ${count}`).join(', ')}`,
        );
    }
}

const childFlag = flag('child');
if (childFlag !== undefined) await child(childFlag[0] as Protocol, childFlag[1] as Client);
else main();
