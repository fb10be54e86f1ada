/**
 * `node bench/delta-scan.ts`: ns per event for the Anthropic delta scanner against `JSON.parse` on
 * the bench's event shapes (a text token; a tool-input fragment with escaped quotes).
 */
import { DeltaScanner } from '../src/providers/anthropic/delta-scanner.ts';

const events = {
  text: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" the quick"}}',
  'tool input': String.raw`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"rows\":[{\"id\":12,"}}`,
};
const count = 1_000_000;

function time(run: () => number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    if (run() < 0) throw new Error('unreachable');
    best = Math.min(best, ((performance.now() - started) * 1e6) / count);
  }
  return best;
}

for (const [name, data] of Object.entries(events)) {
  const scanner = new DeltaScanner();
  const scanned = time(() => {
    let length = 0;
    for (let index = 0; index < count; index++) if (scanner.scan(data)) length += scanner.delta.length;
    return length;
  });
  const parsed = time(() => {
    let length = 0;
    for (let index = 0; index < count; index++) {
      const delta = (JSON.parse(data) as { delta: { text?: string; partial_json?: string } }).delta;
      length += (delta.text ?? delta.partial_json ?? '').length;
    }
    return length;
  });
  console.log(`${name}: scanner ${scanned.toFixed(0)} ns, JSON.parse ${parsed.toFixed(0)} ns per event`);
}
