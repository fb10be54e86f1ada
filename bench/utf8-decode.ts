/**
 * Why `SseDecoder` decodes a piece in one call when it can (src/transport/sse.ts): Node's streaming
 * `TextDecoder.decode(bytes, { stream: true })` converts through ICU, the one-shot `decode(bytes)`
 * does not. Prints ns per call for one SSE event (~160 bytes) and for ~1 KB of events, each way,
 * a whole short stream body (13 events in one chunk, as a 10-token reply arrives) through a fresh
 * streaming decoder (what every body cost before) and the shared one-shot one, and that body
 * through a fresh `SseDecoder`. Run: `node bench/utf8-decode.ts`.
 */
import { SseDecoder } from '../src/transport/sse.ts';

const encoder = new TextEncoder();
const event = (text: string) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
const one = encoder.encode(event('word1 '));
const kilobyte = encoder.encode(Array.from({ length: 6 }, (_, index) => event(`word${index} `)).join(''));
const body = encoder.encode(
  `${Array.from({ length: 12 }, (_, index) => event(`word${index} `)).join('')}data: [DONE]\n\n`,
);

/** ns per call of `run`, after a warm-up, median of 5 timed batches. */
function nsPerCall(run: () => unknown, calls = 200_000): number {
  for (let index = 0; index < 20_000; index++) run();
  const batches: number[] = [];
  for (let batch = 0; batch < 5; batch++) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < calls; index++) run();
    batches.push(Number(process.hrtime.bigint() - started) / calls);
  }
  return batches.sort((a, b) => a - b)[2]!;
}

const streaming = new TextDecoder();
const oneShot = new TextDecoder('utf-8', { ignoreBOM: true });
for (const [label, bytes] of [
  ['one event', one],
  ['~1 KB of events', kilobyte],
] as const) {
  const stream = nsPerCall(() => streaming.decode(bytes, { stream: true }));
  const whole = nsPerCall(() => oneShot.decode(bytes));
  console.log(
    `${label} (${bytes.byteLength} bytes): streaming decode ${stream.toFixed(0)} ns, one-shot ${whole.toFixed(0)} ns (${(stream / whole).toFixed(1)}×)`,
  );
}
// What each body cost before: a fresh streaming decoder (its ICU converter is set up per decoder).
const fresh = nsPerCall(() => new TextDecoder().decode(body, { stream: true }), 50_000);
const freshWhole = nsPerCall(() => oneShot.decode(body), 50_000);
console.log(
  `a ${body.byteLength}-byte body, fresh streaming decoder ${fresh.toFixed(0)} ns, shared one-shot ${freshWhole.toFixed(0)} ns`,
);
let events = 0;
const perBody = nsPerCall(() => {
  const decoder = new SseDecoder(() => events++);
  decoder.feed(body);
  decoder.end();
}, 50_000);
console.log(
  `a ${body.byteLength}-byte body of 13 events through a new SseDecoder: ${(perBody / 1000).toFixed(2)} µs (${events > 0 ? 'events seen' : 'no events'})`,
);
