/**
 * A WebSocket message still arriving, under the rules an HTTP body is read under: its bytes count
 * against `max_request_bytes_in_flight` (and its key's share of it) as they arrive (a
 * {@link HeldBody}, `body-hold.ts`), and one that sends no byte for `body_timeout_seconds`, or is
 * still arriving `body_deadline_seconds` after its first byte, is cut. `ws` buffers a message whole (up
 * to the body limit) before the gateway sees it: without these, sockets each holding all but the
 * last bytes of one message held 31 MiB apiece with no end.
 *
 * Past the bound the socket closes with 1013 (try again later: the message was within the body
 * limit, so not 1009, and the bound frees as requests end — the 503 or 429 an HTTP body gets there);
 * a message that goes quiet or comes too slowly closes it with 1008 (policy violation: 1001 is the gateway going away).
 * Either way `ws` is given no more bytes: what it held is held (and counted) until the socket
 * closes, at most {@link closeGraceMs} after the close frame went out; the refused message is an
 * access log line and a request in the metrics as the HTTP body's 503 / 408 is, with its `closeCode`.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { InboundProtocol, WireError } from '../codecs/types.ts';
import { logRefusal } from './access-log.ts';
import { HeldBody, holderOf } from './body-hold.ts';
import { requestIdFrom } from './caller.ts';
import { GatewayError } from './errors.ts';
import { bodyTimedOut, bodyTooSlow } from './inbound.ts';
import { closeGraceMs } from './node-listener.ts';
import type { GatewayKey } from './keys.ts';
import type { GatewayState } from './state.ts';

/** The socket a message arrives on, as its access log line names it: its path, protocol and the key of its upgrade. */
export interface SocketOf {
  path: string;
  protocol: InboundProtocol;
  key: GatewayKey | undefined;
}

/** The wire error of a bound that refused with something other than its own 503 (never expected). */
const overloadedWire: WireError = {
  status: 503,
  errorClass: 'server_error',
  message: 'request bytes in flight',
  retryable: true,
};

/**
 * Where the client's bytes stand in the framing (RFC 6455 §5.2): only each frame's FIN bit, opcode
 * and length are read, to tell where a data message ends (`ws` parses every frame itself and
 * closes the socket on one it refuses). `pending` is the bytes since the stream was last between
 * messages: a message not yet whole, a frame not yet whole, and control frames sent between the
 * fragments of a message.
 */
export class MessageProgress {
  /** Bytes since the stream was last between messages. */
  pending = 0;
  /** The last chunk fed ended a message: what is pending (if anything) is a new one's. */
  rested = false;
  private readonly header = Buffer.alloc(14);
  private headerBytes = 0;
  /** Payload bytes of the current frame still to come; -1 while its header is incomplete. */
  private payloadLeft = -1;
  /** A data frame without FIN came, and no final one yet. */
  private fragmented = false;

  /** Follows `chunk`: `pending` is then the bytes of a message (or frame) still arriving. */
  feed(chunk: Buffer): void {
    let offset = 0;
    let restedAt = -1;
    while (offset < chunk.length) {
      if (this.payloadLeft < 0) {
        offset = this.readHeader(chunk, offset);
        if (this.payloadLeft < 0) break;
      }
      const taken = Math.min(this.payloadLeft, chunk.length - offset);
      offset += taken;
      this.payloadLeft -= taken;
      if (this.payloadLeft > 0) break;
      if (this.frameEnded()) restedAt = offset;
    }
    this.rested = restedAt >= 0;
    this.pending = restedAt < 0 ? this.pending + chunk.length : chunk.length - restedAt;
  }

  /** Reads the current frame's header from `chunk` at `offset`; returns the offset after what it took. */
  private readHeader(chunk: Buffer, offset: number): number {
    const needed = () => {
      if (this.headerBytes < 2) return 2;
      const length = this.header[1]! & 0x7f;
      const extended = length === 126 ? 2 : length === 127 ? 8 : 0;
      return 2 + extended + (this.header[1]! & 0x80 ? 4 : 0);
    };
    while (offset < chunk.length && this.headerBytes < needed())
      this.header[this.headerBytes++] = chunk[offset++]!;
    if (this.headerBytes < needed()) return offset;
    const length = this.header[1]! & 0x7f;
    this.payloadLeft =
      length === 126
        ? this.header.readUInt16BE(2)
        : length === 127
          ? Number(this.header.readBigUInt64BE(2))
          : length;
    return offset;
  }

  /** The current frame is whole: whether the stream is now between messages. */
  private frameEnded(): boolean {
    const final = (this.header[0]! & 0x80) !== 0;
    const control = (this.header[0]! & 0x08) !== 0;
    this.headerBytes = 0;
    this.payloadLeft = -1;
    if (!control) this.fragmented = !final;
    return !this.fragmented;
  }
}

/**
 * Holds the bytes of the message `raw` (the upgraded socket under `socket`) is receiving against
 * the gateway's bound and its body timeout, from the first byte after the upgrade. Its listener
 * comes before `ws`'s, so a message's bytes are given back before `ws` hands it on (its request
 * then holds its body as an HTTP request does, `generate.ts`).
 */
export function holdIncomingMessages(
  state: GatewayState,
  socket: WebSocket,
  raw: Duplex,
  on: SocketOf,
): void {
  const held = new HeldBody(state, holderOf(state, on.key));
  const progress = new MessageProgress();
  let idle: NodeJS.Timeout | undefined;
  /** When the bytes pending now must have ended (a message, or a frame, still arriving). */
  let deadline = 0;
  let refused = false;
  const refuse = (code: number, wire: WireError) => {
    refused = true;
    clearTimeout(idle);
    // `ws` reads nothing more (as it does itself after a frame it refuses): the rest is discarded.
    for (const listener of raw.listeners('data'))
      if (listener !== onData) raw.off('data', listener as (chunk: Buffer) => void);
    raw.resume();
    state.logger.warn('gateway: websocket closed on a message still arriving', { code });
    // The message refused is logged and counted as the HTTP body refused so is (503, 408), with the close code.
    logRefusal(state, { ...on, requestId: requestIdFrom(undefined) }, wire, code);
    socket.close(code, wire.message);
    setTimeout(() => socket.terminate(), closeGraceMs).unref();
  };
  const onData = (chunk: Buffer) => {
    if (refused) return;
    progress.feed(chunk);
    try {
      held.set(progress.pending);
    } catch (error) {
      return refuse(1013, error instanceof GatewayError ? error.wire : overloadedWire);
    }
    if (progress.pending === 0) {
      clearTimeout(idle);
      idle = undefined;
    } else if (idle === undefined || progress.rested) {
      // A message begins (after a pause, or in the chunk that ended the one before): its own clocks.
      deadline = performance.now() + state.bodyDeadlineMs;
      if (idle === undefined)
        idle = setTimeout(() => refuse(1008, bodyTimedOut(state.bodyTimeoutMs).wire), state.bodyTimeoutMs);
      else idle.refresh();
    } else if (performance.now() > deadline) {
      return refuse(1008, bodyTooSlow(state.bodyDeadlineMs).wire);
    } else idle.refresh();
  };
  raw.prependListener('data', onData);
  raw.once('close', () => {
    clearTimeout(idle);
    held.release();
  });
}
