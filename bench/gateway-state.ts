/**
 * What the Redis state store adds to a gateway request, end to end: one gateway process with
 * `gateway.state: memory`, then one with `gateway.state: redis://…`, each serving a key with
 * limits and a budget (so every request makes its admit + settle), paced at a fixed rate (default
 * 1,000 requests per second) over the emulator. Reported per store: the gateway's own time per
 * request (`x-switchyard-overhead-ms`: decode, state, encode — not the upstream) and the client's
 * latency, p50/p90/p99, and the difference of the medians.
 *
 *   node bench/gateway.ts --state [--rps 1000] [--seconds 3]   (or node bench/gateway-state.ts …)
 */
import { parseArgs } from 'node:util';
import { startEmulator } from '../src/testing/emulator/index.ts';
import { emulatorBaseURL } from '../test/support/provider-types.ts';
import { keyDigest, startGatewayProcess } from '../test/support/gateway-processes.ts';
import { startRedis } from '../test/support/redis-server.ts';

const { values } = parseArgs({
  options: {
    rps: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '3' },
    // Run as `node bench/gateway.ts --state …`, which loads this file.
    state: { type: 'boolean' },
  },
});
const rps = Number(values.rps);
const total = Math.round(rps * Number(values.seconds));

const redis = await startRedis();
const emulator = await startEmulator();
emulator.setDefault({
  type: 'scripted',
  content: [{ type: 'text', text: 'ok' }],
  usage: { input: 10, output: 5 },
});

function config(state: string) {
  return {
    builtins: false,
    adapters: {
      openai: {
        type: 'openai',
        base_url: emulatorBaseURL('openai', emulator.url),
        api_key: 'bench',
        max_retries: 0,
      },
    },
    models: { 'openai:gpt-4.1-mini': { aliases: ['cheap'] } },
    gateway: {
      state,
      state_timeout_ms: 1000,
      access_log: false,
      keys: [
        {
          name: 'bench',
          key: keyDigest('bench-key'),
          limits: { requests_per_minute: 10_000_000, tokens_per_minute: 10_000_000_000 },
          budget: { usd_per_day: 1_000_000 },
        },
      ],
    },
  };
}

const body = JSON.stringify({ model: 'cheap', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
const headers = { authorization: 'Bearer bench-key', 'content-type': 'application/json' };

async function one(url: string): Promise<{ overhead: number; latency: number; ok: boolean }> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body });
    await response.arrayBuffer();
    return {
      overhead: Number(response.headers.get('x-switchyard-overhead-ms')),
      latency: performance.now() - started,
      ok: response.status === 200,
    };
  } catch {
    // A connection the overloaded machine dropped: counted as not ok, not measured.
    return { overhead: Number.NaN, latency: Number.NaN, ok: false };
  }
}

async function run(state: string) {
  const gateway = await startGatewayProcess(config(state));
  try {
    for (let index = 0; index < 300; index++) await one(gateway.url); // warm-up
    const results: Array<{ overhead: number; latency: number; ok: boolean }> = [];
    const pending: Array<Promise<void>> = [];
    const start = performance.now();
    for (let index = 0; index < total; index++) {
      const wait = start + (index * 1000) / rps - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      pending.push(one(gateway.url).then((result) => void results.push(result)));
    }
    await Promise.all(pending);
    const achieved = (total * 1000) / (performance.now() - start);
    return { results, achieved };
  } finally {
    await gateway.stop();
  }
}

const sorted = (numbers: number[]) => [...numbers].sort((a, b) => a - b);
const quantile = (numbers: number[], q: number) =>
  numbers[Math.min(numbers.length - 1, Math.floor(q * numbers.length))]!;
const ms = (value: number) => `${value.toFixed(3)} ms`;

try {
  const medians: Record<string, number> = {};
  console.log(
    `gateway at ${rps} requests/s offered, ${total} requests per store (admit + settle on every request):`,
  );
  for (const [name, state] of [
    ['memory', 'memory'],
    ['redis', redis.url],
  ] as const) {
    const { results, achieved } = await run(state);
    const served = results.filter((result) => result.ok);
    const overhead = sorted(served.map((result) => result.overhead));
    const latency = sorted(served.map((result) => result.latency));
    medians[name] = quantile(overhead, 0.5);
    console.log(
      `  ${name.padEnd(6)} gateway own time p50 ${ms(quantile(overhead, 0.5))} p90 ${ms(quantile(overhead, 0.9))} p99 ${ms(quantile(overhead, 0.99))}` +
        ` | client latency p50 ${ms(quantile(latency, 0.5))} p99 ${ms(quantile(latency, 0.99))}` +
        ` | ${served.length}/${total} ok, ${achieved.toFixed(0)} requests/s achieved`,
    );
  }
  console.log(`  added by Redis (gateway own time, p50): ${ms(medians.redis! - medians.memory!)}`);
} finally {
  await emulator.close();
  await redis.close();
}
