/**
 * CPU per event of the SSE decoder that reads stray lines (Gemini and Vertex streams: Google's raw
 * error lines), which feeds its parser whole lines only: 200 pieces of ~26 KB, each ending in a
 * blank line, per run.
 *
 *     node bench/sse-stray-lines.ts
 */
import { SseDecoder } from '../src/transport/sse.ts';

const event = `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: 'word '.repeat(20) }], role: 'model' } }] })}\n\n`;
const piece = new TextEncoder().encode(event.repeat(200));
const pieces = 200;
let events = 0;

function run(): void {
  const decoder = new SseDecoder(
    () => events++,
    undefined,
    () => {},
  );
  for (let index = 0; index < pieces; index++) decoder.feed(piece);
  decoder.end();
}

for (let index = 0; index < 20; index++) run();
events = 0;
const runs = 100;
const start = process.cpuUsage();
for (let index = 0; index < runs; index++) run();
const used = process.cpuUsage(start);
console.log(`${((used.user + used.system) / events).toFixed(3)} µs of CPU per event (${events} events)`);
