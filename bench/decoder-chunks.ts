/** How the size of body chunks changes the CPU cost of SSE decoding: Switchyard's SseDecoder vs eventsource-parser fed whole chunks. */
import { createParser } from 'eventsource-parser';
import { SseDecoder } from '../src/transport/sse.ts';
import { createPayload, type Protocol } from './payloads.ts';

/**
 * A reader that the consumer paused (pull-based streams) gets coalesced chunks of 95–130 KB, not the
 * 30–64 KB an eager reader sees. Decoded, such a chunk of text with any non-Latin-1 character is a
 * two-byte string over V8's 128 KiB regular-object limit, allocated in large-object space (mmap,
 * page faults: system time). `SseDecoder.feed` decodes in pieces of at most 32 KiB to stay clear.
 *
 * `node decoder-chunks.ts [protocol]` (default anthropic): the text body of the main bench, fed in
 * chunks of each size, each event `JSON.parse`d; median CPU µs per token, and the system-time share.
 */
const protocol = (process.argv[2] ?? 'anthropic') as Protocol;
const tokens = 20_000;
const runs = 40;
const chunkSizes = [16 * 1024, 64 * 1024, 95 * 1024, 128 * 1024];
const body = new Uint8Array(Buffer.concat(createPayload(protocol, 'text', tokens).frames));

type Feed = (chunks: Uint8Array[]) => number;

const decoders: Record<string, Feed> = {
  'SseDecoder (32 KiB pieces)': (chunks) => {
    let events = 0;
    const decoder = new SseDecoder((_event, data) => {
      if (JSON.parse(data) !== null) events++;
    });
    for (const chunk of chunks) decoder.feed(chunk);
    decoder.end();
    return events;
  },
  'eventsource-parser, whole chunks': (chunks) => {
    let events = 0;
    const text = new TextDecoder();
    const parser = createParser({
      onEvent: (message) => {
        if (JSON.parse(message.data) !== null) events++;
      },
    });
    for (const chunk of chunks) parser.feed(text.decode(chunk, { stream: true }));
    return events;
  },
};

function split(size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < body.byteLength; start += size) chunks.push(body.subarray(start, start + size));
  return chunks;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[sorted.length >> 1] as number;
}

console.log(`${protocol} text body, ${body.byteLength} bytes, ${tokens} tokens, ${runs} runs per cell`);
for (const [name, feed] of Object.entries(decoders)) {
  for (const size of chunkSizes) {
    const chunks = split(size);
    for (let warm = 0; warm < 5; warm++) feed(chunks);
    const samples: number[] = [];
    let system = 0;
    for (let run = 0; run < runs; run++) {
      const start = process.cpuUsage();
      feed(chunks);
      const spent = process.cpuUsage(start);
      samples.push((spent.user + spent.system) / tokens);
      system += spent.system;
    }
    const systemMs = (system / 1000).toFixed(0).padStart(4);
    console.log(
      `${name.padEnd(34)} ${String(size / 1024).padStart(3)} KiB chunks: ${median(samples).toFixed(2)} µs/token, system ${systemMs} ms in ${runs} runs`,
    );
  }
}
