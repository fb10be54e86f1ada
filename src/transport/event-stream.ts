/**
 * Incremental decoding of AWS event-stream bodies (`application/vnd.amazon.eventstream`): splits the
 * byte stream into messages by their length prelude and decodes each one with the maintained
 * `@smithy/eventstream-codec`, which checks both CRC-32s (prelude and message).
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/** One decoded message: its `:message-type`, `:event-type` / `:exception-type` and payload text. */
export interface EventStreamMessage {
  /** `event`, `exception` or `error`. */
  messageType: string;
  /** `:event-type` of an event, `:exception-type` of an exception, `:error-code` of an error. */
  type: string;
  /** The payload as UTF-8 text (a JSON document on Bedrock). */
  payload: string;
  /** `:error-message` of an error message: its text (AWS sends it there, the payload empty). */
  errorMessage?: string;
}

/** Receives each decoded message. */
export type EventStreamHandler = (message: EventStreamMessage) => void;

/** Thrown when the bytes are not a well-formed event stream (bad length, bad CRC, cut short). */
export class EventStreamFrameError extends Error {
  override name = 'EventStreamFrameError';
  /** `corrupt_frame`, `checksum_mismatch`, `truncated_frame` or `frame_too_large`. */
  readonly code: 'corrupt_frame' | 'checksum_mismatch' | 'truncated_frame' | 'frame_too_large';

  constructor(code: EventStreamFrameError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/** The smallest message: prelude (8) + prelude CRC (4) + message CRC (4). */
const minimumMessageBytes = 16;

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const textDecoder = new TextDecoder();

/** Encodes one message (emulator, tests, bench): string headers and a UTF-8 payload. */
export function encodeEventStreamMessage(headers: Record<string, string>, payload: string): Uint8Array {
  const typed = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, { type: 'string' as const, value }]),
  );
  return codec.encode({ headers: typed, body: fromUtf8(payload) });
}

function headerText(headers: Record<string, { value: unknown }>, name: string): string {
  const value = headers[name]?.value;
  return typeof value === 'string' ? value : '';
}

/**
 * A push decoder: `feed(bytes)` as chunks arrive, `end()` at the end of the body (throws
 * `truncated_frame` when a message was cut short). A message whose prelude claims fewer than 16 or
 * more than `maxMessageBytes` bytes is refused before any of it is buffered.
 */
export class EventStreamDecoder {
  /**
   * The bytes of an incomplete message, as they arrived: joined once, when the whole message is
   * there. (Joining at every chunk copied the message so far each time: a 16 MiB message in 16 KiB
   * chunks took 20 s of CPU.)
   */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** The length of the message the pending bytes begin; 0 until its prelude has arrived. */
  private needed = 0;
  private readonly handler: EventStreamHandler;
  private readonly maxMessageBytes: number;

  constructor(handler: EventStreamHandler, maxMessageBytes: number) {
    this.handler = handler;
    this.maxMessageBytes = maxMessageBytes;
  }

  feed(chunk: Uint8Array): void {
    let bytes = chunk;
    if (this.pendingBytes > 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.needed === 0 && this.pendingBytes >= 4) this.needed = this.lengthOf(this.pendingPrelude());
      if (this.needed === 0 || this.pendingBytes < this.needed) return;
      bytes = joined(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
      this.needed = 0;
    }
    let offset = 0;
    while (bytes.length - offset >= 4) {
      // The big-endian length prelude, read without a DataView per message (the per-token hot path).
      const length = this.lengthOf(
        ((bytes[offset]! << 24) |
          (bytes[offset + 1]! << 16) |
          (bytes[offset + 2]! << 8) |
          bytes[offset + 3]!) >>>
          0,
      );
      if (bytes.length - offset < length) {
        this.needed = length;
        break;
      }
      this.dispatch(bytes.subarray(offset, offset + length));
      offset += length;
    }
    if (offset === bytes.length) return;
    // A copy: the rest of one message at most, and the chunk it came in is not kept alive.
    this.pending = [bytes.slice(offset)];
    this.pendingBytes = bytes.length - offset;
  }

  end(): void {
    if (this.pendingBytes > 0)
      throw new EventStreamFrameError(
        'truncated_frame',
        `the body ended inside an event-stream message (${this.pendingBytes} bytes)`,
      );
  }

  /** A message length from its prelude, refused when it cannot be one (before any of it is kept). */
  private lengthOf(length: number): number {
    if (length < minimumMessageBytes)
      throw new EventStreamFrameError('corrupt_frame', `an event-stream message claims ${length} bytes`);
    if (length > this.maxMessageBytes)
      throw new EventStreamFrameError(
        'frame_too_large',
        `an event-stream message exceeded the limit of ${this.maxMessageBytes} bytes`,
      );
    return length;
  }

  /** The first four pending bytes (they may span chunks), big-endian. */
  private pendingPrelude(): number {
    let value = 0;
    let count = 0;
    for (const part of this.pending)
      for (let index = 0; index < part.length && count < 4; index++, count++)
        value = value * 256 + part[index]!;
    return value;
  }

  private dispatch(bytes: Uint8Array): void {
    let decoded: ReturnType<EventStreamCodec['decode']>;
    try {
      decoded = codec.decode(bytes);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      const code = /checksum/i.test(text) ? 'checksum_mismatch' : 'corrupt_frame';
      throw new EventStreamFrameError(code, `an event-stream message did not decode (${code})`);
    }
    const headers = decoded.headers as Record<string, { value: unknown }>;
    const messageType = headerText(headers, ':message-type') || 'event';
    const type =
      messageType === 'exception'
        ? headerText(headers, ':exception-type')
        : messageType === 'error'
          ? headerText(headers, ':error-code')
          : headerText(headers, ':event-type');
    const payload = textDecoder.decode(decoded.body);
    const errorMessage = messageType === 'error' ? headerText(headers, ':error-message') : '';
    this.handler(
      errorMessage === '' ? { messageType, type, payload } : { messageType, type, payload, errorMessage },
    );
  }
}

/** `parts` as one array of `total` bytes. */
function joined(parts: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
