import { describe, expect, it } from 'vitest';
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

  it('a CRLF split between two chunks is one line end', () => {
    const encoder = new TextEncoder();
    expect(decodeChunks([encoder.encode('data: a\r'), encoder.encode('\n\r\ndata: b\r\n\r\n')])).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
    ]);
  });
});
