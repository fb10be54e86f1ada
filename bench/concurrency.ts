/**
 * `npm run bench -- --concurrency`: N concurrent Switchyard streams (default 1,000 × 2,000 tokens)
 * against bench/server.ts in a separate process; checks every output exactly and prints peak client
 * RSS, wall time and event-loop delay p50/p99 (`perf_hooks.monitorEventLoopDelay`). Loopback only,
 * bounded in count (one round) and time (`BENCH_CONCURRENCY_TIMEOUT_S`, default 300 s).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import type { Adapter } from '../src/core/adapter.ts';
import type { CanonicalRequest } from '../src/core/request.ts';
import { createAdapterOfType, createProviderTypeTable } from '../src/registry/provider-type-table.ts';
import { MemoryDiagnosis, type Progress } from './memory-diagnose.ts';
import {
  providerTypeOf,
  createPayload,
  type Delivery,
  models,
  type Protocol,
  protocols,
} from './payloads.ts';

const goals = { rssMb: 300, p99Ms: 50 };

function flag(name: string, fallback: string): string {
  const found = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return found === undefined ? fallback : found.slice(name.length + 3);
}

const streams = Number(process.env.BENCH_STREAMS ?? 1_000);
const tokens = Number(process.env.BENCH_CONCURRENCY_TOKENS ?? 2_000);
const timeoutSeconds = Number(process.env.BENCH_CONCURRENCY_TIMEOUT_S ?? 300);
const protocol = flag('protocol', 'anthropic').split(',')[0] as Protocol;
const delivery = flag('delivery', 'drip').split(',')[0] as Delivery;
const diagnose = process.argv.includes('--diagnose');
const snapshotAtMs = flag('heap-snapshot', '') === '' ? undefined : Number(flag('heap-snapshot', ''));
const progress: Progress = { receiving: 0, finished: 0 };
if (!protocols.includes(protocol)) throw new Error(`--protocol: unknown ${protocol}`);

async function startServer(): Promise<{ url: string; stop: () => void }> {
  const script = new URL('./server.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, [script, String(tokens)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  return {
    url: (JSON.parse(line) as { url: string }).url,
    stop: () => {
      child.stdin?.end();
      child.kill();
    },
  };
}

/** Creates the adapter under test from its provider-type row, which imports only that adapter (the baseline RSS holds no other provider's code). */
async function createAdapter(baseRoot: string): Promise<Adapter> {
  const definition = createProviderTypeTable().get(providerTypeOf[protocol])!;
  // One connection per stream: the default pool (64 per origin) would queue 936 of the 1,000.
  return createAdapterOfType(definition, {
    name: definition.type,
    apiKey: 'bench-key',
    maxRetries: 0,
    logger: { warn() {} },
    baseURL: `${baseRoot}${definition.basePath ?? ''}`,
    options: { maxConnections: streams },
  });
}

async function runOne(adapter: Adapter, request: CanonicalRequest, expected: string): Promise<boolean> {
  const stream = adapter.stream(request);
  // Every delta is checked in place against the expected text (offset by offset) instead of being
  // concatenated: a 2,000-piece string per stream would add ~90 MB of the benchmark's own to the peak.
  let offset = 0;
  let exact = true;
  let first = true;
  for await (const event of stream) {
    if (first) [first, progress.receiving] = [false, progress.receiving + 1];
    if (event.type !== 'text-delta') continue;
    if (exact && expected.startsWith(event.delta, offset)) offset += event.delta.length;
    else exact = false;
  }
  const response = await stream.result();
  progress.finished++;
  const built = response.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return exact && offset === expected.length && built === expected && response.finishReason === 'completed';
}

async function main(): Promise<void> {
  const expected = createPayload(protocol, 'text', tokens).expected.text;
  const server = await startServer();
  const adapter = await createAdapter(`${server.url}/${delivery}/text`);
  const request: CanonicalRequest = {
    model: models[protocol],
    transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Write a long answer.' }] }],
    maxOutputTokens: 8192,
  };
  const deadline = setTimeout(() => {
    console.error(`concurrency: gave up after ${timeoutSeconds} s`);
    server.stop();
    process.exit(2);
  }, timeoutSeconds * 1000);
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  let atPeak = process.memoryUsage();
  const diagnosis =
    diagnose || snapshotAtMs !== undefined ? new MemoryDiagnosis(progress, 500, snapshotAtMs) : undefined;
  const sampler = setInterval(() => {
    diagnosis?.sample();
    const usage = process.memoryUsage();
    if (usage.rss > peakRss) [peakRss, atPeak] = [usage.rss, usage];
  }, 20);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();
  let exact = 0;
  let failed = 0;
  try {
    const results = await Promise.allSettled(
      Array.from({ length: streams }, () => runOne(adapter, request, expected)),
    );
    for (const result of results) {
      if (result.status === 'fulfilled' && result.value) exact++;
      else failed++;
    }
  } finally {
    delay.disable();
    clearInterval(sampler);
    clearTimeout(deadline);
    await adapter.close();
    server.stop();
  }
  const wallMs = performance.now() - started;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
  const ms = (nanoseconds: number) => (nanoseconds / 1e6).toFixed(1);
  const p99 = delay.percentile(99);
  console.log(
    `concurrency: ${streams} streams × ${tokens} tokens (${protocol}, ${delivery}), outputs exact: ${exact}/${streams}`,
  );
  console.log(
    `  wall ${(wallMs / 1000).toFixed(2)} s · peak client RSS ${mb(peakRss)} MB (${mb(rssBefore)} MB before; ` +
      `maxRSS ${mb(process.resourceUsage().maxRSS * 1024)} MB) · event-loop delay p50 ${ms(delay.percentile(50))} ms, ` +
      `p99 ${ms(p99)} ms, max ${ms(delay.max)} ms`,
  );
  console.log(
    `  at peak: V8 heap ${mb(atPeak.heapUsed)} MB used of ${mb(atPeak.heapTotal)} MB, external ${mb(atPeak.external)} MB ` +
      `(array buffers ${mb(atPeak.arrayBuffers)} MB)`,
  );
  console.log(
    `  goals: peak RSS ≤ ${goals.rssMb} MB ${peakRss / 1024 / 1024 <= goals.rssMb ? 'PASS' : 'MISS'}, ` +
      `p99 ≤ ${goals.p99Ms} ms ${p99 / 1e6 <= goals.p99Ms ? 'PASS' : 'MISS'} (shared machine: timings are noisy)`,
  );
  if (diagnosis !== undefined) console.log(diagnosis.report());
  if (failed > 0) {
    console.error(`concurrency: ${failed} streams FAILED the exact-output check`);
    process.exitCode = 1;
  }
}

await main();
