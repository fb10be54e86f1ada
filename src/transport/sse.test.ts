import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LimitExceededError } from '../core/limit-exceeded.ts';
import { decodeSseText, SseDecoder } from './sse.ts';

function decodeChunks(chunks: Uint8Array[]) {
  const events: Array<{ event: string | undefined; data: string }> = [];
  const decoder = new SseDecoder((event, data) => events.push({ event, data }));
  for (const chunk of chunks) decoder.feed(chunk);
  decoder.end();
  return events;
}

describe('SseDecoder', () => {
  it.each([
    ['LF', '\n'],
    ['CR', '\r'],
    ['CRLF', '\r\n'],
  ])('handles %s line ends', (_, end) => {
    const text = `event: a${end}data: 1${end}${end}data: 2${end}${end}`;
    expect(decodeSseText(text)).toEqual([
      { event: 'a', data: '1' },
      { event: undefined, data: '2' },
    ]);
  });

  it('joins multi-line data with newlines', () => {
    expect(decodeSseText('data: first\ndata: second\n\n')).toEqual([
      { event: undefined, data: 'first\nsecond' },
    ]);
  });

  it('skips comments and pings', () => {
    expect(decodeSseText(': keep-alive\n\n:ping\n\ndata: x\n\n')).toEqual([{ event: undefined, data: 'x' }]);
  });

  it('dispatches a last event that has no trailing blank line', () => {
    expect(decodeSseText('data: a\n\ndata: last')).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'last' },
    ]);
  });

  it('unicode split across chunks is reassembled (every byte its own chunk)', () => {
    const bytes = new TextEncoder().encode('data: {"t":"héllo 🌍 世界"}\n\n');
    const chunks = [...bytes].map((byte) => new Uint8Array([byte]));
    expect(decodeChunks(chunks)).toEqual([{ event: undefined, data: '{"t":"héllo 🌍 世界"}' }]);
  });

  it('drops the body’s BOM as UTF-8 decoding does, and one more leading U+FEFF as the SSE grammar allows; keeps a third', () => {
    const bom = [0xef, 0xbb, 0xbf];
    const body = Uint8Array.from([...bom, ...bom, ...bom, ...new TextEncoder().encode('data: x\n\n')]);
    const expected = [{ event: undefined, data: 'x' }];
    // The third U+FEFF starts the first line: a field named "\uFEFFdata", which is ignored.
    expect(decodeChunks([body.subarray(6)])).toEqual(expected);
    expect(decodeChunks([body.subarray(3)])).toEqual(expected);
    expect(decodeChunks([body])).toEqual([]);
    expect(decodeChunks([...body.subarray(3)].map((byte) => Uint8Array.of(byte)))).toEqual(expected);
  });

  it('decodes any split of any bytes as the whole body decoded at once (a leading BOM dropped, one later kept, invalid bytes replaced)', () => {
    // Pieces that end on an ASCII byte with nothing carried over are decoded in one call, the rest
    // by the streaming decoder: every split must give what one decode of all the bytes gives.
    const encoder = new TextEncoder();
    const piece = fc.oneof(
      fc.constantFrom('data: ', 'event: e\n', '\n\n', '\r\n', 'é', '🌍', '世界', '\uFEFF', 'x', '{"a":1}'),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
    );
    const body = fc.tuple(
      fc.boolean(),
      fc.array(
        fc.oneof(
          piece.map((text) => encoder.encode(text)),
          fc.uint8Array({ maxLength: 3 }),
        ),
        {
          maxLength: 30,
        },
      ),
    );
    fc.assert(
      fc.property(body, fc.array(fc.nat(), { maxLength: 8 }), ([bom, parts], cuts) => {
        const bytes = Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), ...parts]);
        const at = [...new Set(cuts.map((cut) => cut % (bytes.byteLength + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((start, index) =>
          bytes.subarray(start, [...at, bytes.byteLength][index]),
        );
        expect(decodeChunks(chunks)).toEqual(decodeSseText(new TextDecoder().decode(bytes)));
      }),
      { numRuns: 500 },
    );
  });

  it('a CRLF split between two chunks is one line end', () => {
    const encoder = new TextEncoder();
    expect(decodeChunks([encoder.encode('data: a\r'), encoder.encode('\n\r\ndata: b\r\n\r\n')])).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
    ]);
  });

  it('a chunk far larger than one decoding piece decodes like many small chunks (characters across every piece boundary)', () => {
    // ~200 KB in one chunk: a paused reader gets such coalesced chunks; 🌍 (4 bytes) and 世 (3 bytes)
    // land across the 32 KiB piece boundaries, and one event straddles each boundary.
    const frames = Array.from(
      { length: 4000 },
      (_, index) =>
        `event: e${index % 3}\ndata: {"n":${index},"t":"🌍 世界 é ${'x'.repeat(index % 17)}"}\n\n`,
    );
    const bytes = new TextEncoder().encode(frames.join(''));
    expect(bytes.byteLength).toBeGreaterThan(6 * 32 * 1024);
    const whole = decodeChunks([bytes]);
    expect(whole).toHaveLength(4000);
    expect(whole).toEqual(decodeSseText(frames.join('')));
    expect(whole[3999]).toEqual({ event: 'e0', data: `{"n":3999,"t":"🌍 世界 é ${'x'.repeat(3999 % 17)}"}` });
  });

  it('an event larger than the limit inside one large chunk still fails with LimitExceededError', () => {
    const bytes = new TextEncoder().encode(`data: ${'x'.repeat(100 * 1024)}\n\n`);
    const decoder = new SseDecoder(() => {}, 64 * 1024);
    expect(() => decoder.feed(bytes)).toThrow(LimitExceededError);
  });

  it('an event whose data lines are interleaved with comments, each chunk small, fails past the limit', () => {
    const events: string[] = [];
    const decoder = new SseDecoder((_, data) => events.push(data), 64 * 1024);
    const chunk = new TextEncoder().encode(`data: ${'x'.repeat(1000)}\n: keep-alive\n`);
    let thrown: unknown;
    for (let index = 0; index < 200 && thrown === undefined; index++) {
      try {
        decoder.feed(chunk);
      } catch (error) {
        thrown = error;
      }
    }
    expect(thrown).toBeInstanceOf(LimitExceededError);
    expect(events).toEqual([]);
  });

  it('comments between events of any number do not count toward the limit', () => {
    const events: string[] = [];
    const decoder = new SseDecoder((_, data) => events.push(data), 4 * 1024);
    for (let index = 0; index < 100; index++)
      decoder.feed(new TextEncoder().encode(`: ping ${'p'.repeat(100)}\n`));
    decoder.feed(new TextEncoder().encode('data: done\n\n'));
    expect(events).toEqual(['done']);
  });
});
