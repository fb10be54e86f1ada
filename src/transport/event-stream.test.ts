/** The event-stream decoder: messages however the bytes are cut, limits before buffering, linear in the bytes. */
import { describe, expect, it } from 'vitest';
import {
  encodeEventStreamMessage,
  EventStreamDecoder,
  EventStreamFrameError,
  type EventStreamMessage,
} from './event-stream.ts';

const message = (payload: string) =>
  encodeEventStreamMessage({ ':message-type': 'event', ':event-type': 'chunk' }, payload);

function decodeIn(chunks: Uint8Array[], limit = 1 << 20): EventStreamMessage[] {
  const seen: EventStreamMessage[] = [];
  const decoder = new EventStreamDecoder((decoded) => seen.push(decoded), limit);
  for (const chunk of chunks) decoder.feed(chunk);
  decoder.end();
  return seen;
}

function cut(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.slice(at, at + size));
  return chunks;
}

const three = Buffer.concat([message('{"a":1}'), message('{"b":"é"}'), message('{"c":3}')]);

describe('event-stream decoder', () => {
  it.each([1, 2, 3, 5, 7, 16, 1000])('three messages cut every %i bytes decode the same', (size) => {
    expect(decodeIn(cut(three, size)).map((decoded) => decoded.payload)).toEqual([
      '{"a":1}',
      '{"b":"é"}',
      '{"c":3}',
    ]);
  });

  it('a body that ends inside a message is truncated_frame, naming the bytes held', () => {
    const decoder = new EventStreamDecoder(() => {}, 1 << 20);
    for (const chunk of cut(three.subarray(0, three.length - 5), 3)) decoder.feed(chunk);
    expect(() => decoder.end()).toThrow(/ended inside an event-stream message/);
  });

  it('a prelude over the limit is refused as soon as its four bytes arrive, even split across chunks', () => {
    const big = message('x'.repeat(5000));
    const decoder = new EventStreamDecoder(() => {}, 1000);
    decoder.feed(message('{"ok":1}').subarray(0, 10)); // a message begins…
    const error = (() => {
      try {
        decoder.feed(message('{"ok":1}').subarray(10));
        decoder.feed(big.subarray(0, 2));
        decoder.feed(big.subarray(2, 3));
        decoder.feed(big.subarray(3, 4));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(EventStreamFrameError);
    expect((error as EventStreamFrameError).code).toBe('frame_too_large');
  });

  it('a 16 MiB message in 4 KiB chunks is joined once, not at every chunk (linear in its bytes)', () => {
    // Copying the message so far at each chunk would move 4,096 × 8 MiB = 32 GiB (minutes): the
    // test's timeout is the oracle.
    const payload = 'y'.repeat(16 * 1024 * 1024);
    const [decoded] = decodeIn(cut(message(payload), 4096), 32 * 1024 * 1024);
    expect(decoded?.payload.length).toBe(payload.length);
  }, 10_000);
});
