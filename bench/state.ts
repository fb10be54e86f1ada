/**
 * What the shared state costs per request: the state work a gateway does before dispatch (admit:
 * rate limits + budget in one step; the circuit checks of the model and its provider) through the
 * memory store and through the Redis store, paced at a fixed rate (default 1,000 requests per
 * second), and the difference of the medians. Settling after the call is issued too, off the
 * measured path (as the gateway does).
 *
 *   node bench/state.ts [--rps 1000] [--seconds 3] [--redis redis://127.0.0.1:6379]
 *
 * Without `--redis` it starts a redis-server of its own on a free loopback port (stopped at the end).
 *
 * Then a stored value's read (a Responses conversation, `previous_response_id`), as the gateway reads
 * it: with its size told (`hold`) for `max_request_bytes_in_flight`. A 2 KB value is read paced at
 * `--rps`, a 1 MB one 200 times in turn.
 */
import { parseArgs } from 'node:util';
import { Availability } from '../src/routing/availability.ts';
import { createMemoryStateStore } from '../src/state/memory.ts';
import { createRedisStateStore } from '../src/state/redis.ts';
import type { StateStore } from '../src/state/types.ts';
import { startRedis } from '../test/support/redis-server.ts';

const { values } = parseArgs({
  options: {
    rps: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '3' },
    redis: { type: 'string' },
  },
});
const rps = Number(values.rps);
const total = Math.round(rps * Number(values.seconds));

/** One request's state work before dispatch, timed; the settle goes out after, unmeasured. */
async function request(store: StateStore, availability: Availability, index: number): Promise<number> {
  const started = performance.now();
  const admission = await store.admit({
    key: `team-${index % 4}`,
    tokens: 1200,
    limits: { requestsPerMinute: 1_000_000, tokensPerMinute: 1_000_000_000 },
    budget: { usdPerDay: 1_000_000 },
    reserveMicros: 60_000,
  });
  const model = availability.check('model:anthropic:claude-sonnet-4-5');
  const provider = availability.check('provider:anthropic');
  if (model instanceof Promise) await model;
  if (provider instanceof Promise) await provider;
  const elapsed = performance.now() - started;
  if (admission.allowed) void store.settle(admission.reservation, { tokens: 900, costMicros: 12_000 });
  return elapsed;
}

/** Paced: request i starts at i / rps seconds (open loop), each measured on its own. */
async function run(store: StateStore): Promise<number[]> {
  const availability = new Availability({ store: store.availability });
  for (let index = 0; index < 200; index++) await request(store, availability, index); // warm-up
  const latencies: number[] = [];
  const pending: Array<Promise<void>> = [];
  const start = performance.now();
  for (let index = 0; index < total; index++) {
    const due = start + (index * 1000) / rps;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(request(store, availability, index).then((ms) => void latencies.push(ms)));
  }
  await Promise.all(pending);
  return latencies.sort((a, b) => a - b);
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const format = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;

/** Reads of one stored value, as the gateway's `previous_response_id` does (its size held), each timed. */
async function reads(store: StateStore, name: string, count: number, paced: boolean): Promise<number[]> {
  const hold = (bytes: number) => void bytes;
  for (let index = 0; index < 50; index++) await store.get(name, hold); // warm-up
  const latencies: number[] = [];
  const pending: Array<Promise<void>> = [];
  const start = performance.now();
  for (let index = 0; index < count; index++) {
    const read = async () => {
      const started = performance.now();
      await store.get(name, hold);
      latencies.push(performance.now() - started);
    };
    if (!paced) {
      await read();
      continue;
    }
    const wait = start + (index * 1000) / rps - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(read());
  }
  await Promise.all(pending);
  return latencies.sort((a, b) => a - b);
}

const line = (name: string, sorted: number[]) =>
  `  ${name.padEnd(6)} p50 ${format(quantile(sorted, 0.5))}  p90 ${format(quantile(sorted, 0.9))}  p99 ${format(quantile(sorted, 0.99))}`;

const server = values.redis === undefined ? await startRedis() : undefined;
const url = values.redis ?? server!.url;
try {
  const memory = await run(createMemoryStateStore());
  const redisStore = createRedisStateStore({ url, prefix: `bench${Date.now()}`, timeoutMs: 50 });
  await redisStore.ready;
  const redis = await run(redisStore);
  const small = 'x'.repeat(2 * 1024);
  const large = 'x'.repeat(1024 * 1024);
  await redisStore.set('bench-small', small, 600);
  await redisStore.set('bench-large', large, 600);
  const smallReads = await reads(redisStore, 'bench-small', total, true);
  const largeReads = await reads(redisStore, 'bench-large', 200, false);
  await redisStore.close();
  console.log(`state work per request at ${rps} requests/s, ${total} requests (admit + 2 circuit checks):`);
  for (const [name, sorted] of [
    ['memory', memory],
    ['redis', redis],
  ] as const)
    console.log(
      `  ${name.padEnd(6)} p50 ${format(quantile(sorted, 0.5))}  p90 ${format(quantile(sorted, 0.9))}  p99 ${format(quantile(sorted, 0.99))}`,
    );
  console.log(`  added by Redis: p50 ${format(quantile(redis, 0.5) - quantile(memory, 0.5))}`);
  console.log('stored value read from Redis (its size held):');
  console.log(line('2 KB', smallReads));
  console.log(line('1 MB', largeReads));
} finally {
  await server?.close();
}
