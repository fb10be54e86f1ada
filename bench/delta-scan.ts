/**
 * `node bench/delta-scan.ts`: ns per event for the hand-written delta scanners against `JSON.parse`
 * on the bench's event shapes (a text token; a tool-input fragment with escaped quotes).
 */
import { DeltaScanner as AnthropicScanner } from '../src/providers/anthropic/delta-scanner.ts';
import { DeltaScanner as ChatScanner } from '../src/providers/openai-chat/delta-scanner.ts';

const chatHead =
  '{"id":"chatcmpl-BenchBenchBenchBenchBench01","object":"chat.completion.chunk","created":1770933892,' +
  '"model":"gpt-4.1-mini","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[{"index":0,"delta":';
const chatTail = ',"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Qup1BsQ3"}';

const cases = [
  {
    name: 'anthropic text',
    scanner: new AnthropicScanner(),
    data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" the quick"}}',
  },
  {
    name: 'anthropic tool input',
    scanner: new AnthropicScanner(),
    data: String.raw`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"rows\":[{\"id\":12,"}}`,
  },
  {
    name: 'openai chat text',
    scanner: new ChatScanner(),
    data: `${chatHead}{"content":" the quick"}${chatTail}`,
  },
  {
    name: 'openai chat arguments',
    scanner: new ChatScanner(),
    data: `${chatHead}{"tool_calls":[{"index":0,"function":{"arguments":"{\\"rows\\":[{\\"id\\":12,"}}]}${chatTail}`,
  },
];
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

for (const { name, scanner, data } of cases) {
  if (!scanner.scan(data)) throw new Error(`${name}: the scanner does not take the bench event`);
  const scanned = time(() => {
    let length = 0;
    for (let index = 0; index < count; index++) if (scanner.scan(data)) length += scanner.delta.length;
    return length;
  });
  const parsed = time(() => {
    let length = 0;
    for (let index = 0; index < count; index++) length += JSON.parse(data) === null ? 0 : 1;
    return length;
  });
  console.log(`${name}: scanner ${scanned.toFixed(0)} ns, JSON.parse ${parsed.toFixed(0)} ns per event`);
}
