/** What delivering one event costs: EventStream + `for await` vs the async-iterator protocol's own floor vs a plain loop. */
import { EventStream } from '../src/core/event-stream.ts';

/**
 * `node delivery.ts`: 20,000 text-delta-shaped events, pushed in bursts of 500 (one bulk body
 * chunk's worth, the producer awaiting `demand()` between bursts as the runtime does), read with
 * `for await`. Compared with a bare async iterator that returns `Promise.resolve({ value, done })`
 * per buffered value (the protocol's floor: one promise, one iterator result, one microtask per
 * event) and a synchronous loop. Median wall ns per event (no I/O involved), 100 interleaved runs.
 */
const count = 20_000;
const burst = 500;
const runs = 100;
const events = Array.from({ length: count }, (_, index) => ({
  type: 'text-delta' as const,
  index: 0,
  delta: `t${index % 10}`,
}));

async function viaEventStream(): Promise<number> {
  const stream = new EventStream<(typeof events)[number], number>();
  void (async () => {
    let pushed = 0;
    while (pushed < count) {
      for (let index = 0; index < burst && pushed < count; index++) stream.push(events[pushed++]!);
      const wanted = stream.demand();
      if (wanted !== undefined) await wanted;
    }
    stream.end(count);
  })();
  let sum = 0;
  for await (const event of stream) sum += event.delta.length;
  return sum;
}

async function viaBareIterator(): Promise<number> {
  let position = 0;
  const iterable: AsyncIterable<(typeof events)[number]> = {
    [Symbol.asyncIterator]: () => ({
      next: () =>
        Promise.resolve(
          position < count
            ? { value: events[position++]!, done: false as const }
            : { value: undefined, done: true as const },
        ),
    }),
  };
  let sum = 0;
  for await (const event of iterable) sum += event.delta.length;
  return sum;
}

async function viaLoop(): Promise<number> {
  let sum = 0;
  for (const event of events) sum += event.delta.length;
  return sum;
}

const cases: Record<string, () => Promise<number>> = {
  'EventStream, for await': viaEventStream,
  'bare async iterator (floor)': viaBareIterator,
  'synchronous loop': viaLoop,
};

// Interleaved, so a busy machine slows every case alike.
const samples = new Map(Object.keys(cases).map((name) => [name, [] as number[]]));
for (let warm = 0; warm < 20; warm++) for (const run of Object.values(cases)) await run();
for (let index = 0; index < runs; index++) {
  for (const [name, run] of Object.entries(cases)) {
    const started = performance.now();
    await run();
    samples.get(name)!.push(((performance.now() - started) * 1e6) / count);
  }
}
for (const [name, values] of samples) {
  values.sort((left, right) => left - right);
  console.log(`${name.padEnd(28)} ${(values[runs >> 1] as number).toFixed(0).padStart(4)} ns/event`);
}
