import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { PlainHistogram } from './histogram.ts';

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** A deterministic spread of durations: below the first bucket, on bounds, between, above the last. */
function observations(count: number): number[] {
  let seed = 7;
  const values: number[] = [0, 0.005, 0.1, 120, 121, 1e-9];
  for (let index = 0; index < count; index++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    values.push((seed / 2 ** 31) ** 3 * 150);
  }
  return values;
}

describe('the plain histogram', () => {
  it('writes the same text as prom-client’s Histogram for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const options = { name: 'x_seconds', help: 'Request duration', labelNames: ['protocol', 'stream'] };
    const plain = new PlainHistogram({ ...options, buckets, registers: [ours] });
    const reference = new Histogram({ ...options, buckets, registers: [theirs] });
    for (const [index, value] of observations(2000).entries()) {
      const labels = [index % 3 === 0 ? 'gemini' : 'openai-chat', String(index % 2 === 0)] as const;
      plain.series(...labels).observe(value);
      reference.labels(...labels).observe(value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('a series is made once per label values; reset empties it', async () => {
    const registry = new Registry();
    const plain = new PlainHistogram({
      name: 'y_seconds',
      help: 'h',
      labelNames: ['protocol'],
      buckets,
      registers: [registry],
    });
    expect(plain.series('a')).toBe(plain.series('a'));
    expect(plain.labels('a')).toBe(plain.series('a'));
    plain.series('a').observe(0.2);
    expect(await registry.metrics()).toContain('y_seconds_count{protocol="a"} 1');
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('protocol="a"');
  });
});
