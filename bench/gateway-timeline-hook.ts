/**
 * Loaded with `node --import` into a gateway server of bench/gateway-timeline.ts: timestamps of one
 * sequential call's steps from Node's and undici's diagnostics channels (no change to the server's
 * code), as offsets from the request's arrival; `timeline` on stdin prints the medians of the calls
 * since `timeline-reset`.
 */
import { subscribe } from 'node:diagnostics_channel';

/** The steps, in order: the channel each is read from. */
const steps = [
  'http.server.request.start',
  'undici:request:create',
  'undici:client:sendHeaders',
  'undici:request:headers',
  'undici:request:trailers',
  'http.server.response.finish',
] as const;

let startedAt = 0;
let current: number[] = [];
const samples: number[][] = steps.map(() => []);

for (const [index, name] of steps.entries())
  subscribe(name, () => {
    const now = performance.now();
    if (index === 0) {
      startedAt = now;
      current = [0];
      return;
    }
    // One call at a time: a step out of order (a call of another kind) drops the call.
    if (current.length !== index) return;
    current.push((now - startedAt) * 1000);
    if (index === steps.length - 1) for (const [step, value] of current.entries()) samples[step]!.push(value);
  });

const median = (values: number[]) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[sorted.length >> 1] ?? Number.NaN;
};

process.stdin.setEncoding('utf8');
process.stdin.on('data', (line: string) => {
  const command = line.trim();
  if (command === 'timeline-reset') for (const values of samples) values.length = 0;
  if (command === 'timeline')
    process.stdout.write(
      `timeline ${JSON.stringify({ calls: samples[0]!.length, medians: samples.map(median), steps })}\n`,
    );
});
