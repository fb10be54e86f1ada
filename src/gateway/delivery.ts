/**
 * The send timeout (`gateway.send_timeout_seconds`, as nginx's `send_timeout`) on the gateway's own
 * server: a client that takes nothing of what its reply's socket holds unsent for that long is cut
 * off — between a stream's writes ({@link drained}) and after a reply's last write, a whole reply's
 * one write included ({@link deliverWithin}). A client still taking bytes of a large write is not cut.
 * The Hono app mounted on @hono/node-server gets the same once the host has ended a reply
 * ({@link deliverAfterEnd}); a mounted app's streams are watched by their pulls (`webBody`).
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

type HandledSocket = Socket & { _handle?: { writeQueueSize?: number } | null };

/**
 * How much the response's socket still holds unsent: the bytes queued in the stream
 * (`writableLength`, which counts a write handed to libuv whole until all of it is sent: an 8 MiB
 * write reads 8 MiB for seconds) and those of libuv's own write queue (`writeQueueSize` of the
 * socket's handle, which Node's `net` reads too), which shrinks as the client takes them.
 */
function unsentOn(outgoing: ServerResponse): [queued: number, writing: number] {
  const socket = outgoing.socket as HandledSocket | null | undefined;
  if (socket === null || socket === undefined) return [0, 0];
  return [socket.writableLength, socket._handle?.writeQueueSize ?? 0];
}

/** Whether the response's socket still holds bytes the client has not taken (no allocation). */
function holdsUnsent(outgoing: ServerResponse): boolean {
  const socket = outgoing.socket as HandledSocket | null | undefined;
  if (socket === null || socket === undefined) return false;
  return socket.writableLength > 0 || (socket._handle?.writeQueueSize ?? 0) > 0;
}

/**
 * Calls `settled(true)` on `until` (`drain`, or `finish`: the whole reply taken), `settled(false)`
 * on `close` (a client that left never drains) or once the client has taken nothing for
 * `timeoutMs`: then the response is destroyed. A client still reading (the socket holds less unsent
 * than at the last look) is given another `timeoutMs`, however long a large write takes it.
 */
function untilTaken(
  outgoing: ServerResponse,
  timeoutMs: number,
  until: 'drain' | 'finish',
  settled: (taken: boolean) => void,
): void {
  let [queued, writing] = unsentOn(outgoing);
  const look = () => {
    const [nowQueued, nowWriting] = unsentOn(outgoing);
    // Either shrank, or libuv took up a write it did not have: the client took something (a write
    // moving from the stream to libuv grows libuv's queue while the stream's stays, so each is
    // compared with itself; against a client that takes nothing, libuv's queue never moves).
    const progressed = nowQueued < queued || nowWriting < writing || (writing === 0 && nowWriting > 0);
    [queued, writing] = [nowQueued, nowWriting];
    if (progressed) {
      stalled = setTimeout(look, timeoutMs);
      return;
    }
    outgoing.destroy();
    gone();
  };
  let stalled = setTimeout(look, timeoutMs);
  const end = (wasTaken: boolean) => {
    clearTimeout(stalled);
    outgoing.off(until, taken);
    outgoing.off('close', gone);
    settled(wasTaken);
  };
  const taken = () => end(true);
  const gone = () => end(false);
  outgoing.on(until, taken);
  outgoing.on('close', gone);
}

/** Resolves on `drain`, on `close`, or once the response is cut for taking nothing for `timeoutMs`. */
export function drained(outgoing: ServerResponse, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => untilTaken(outgoing, timeoutMs, 'drain', () => resolve()));
}

/**
 * Replies whose last write was left unsent and that closed before their client took it all: cut
 * off, or their client gone. Node's `writableFinished` reads true for them once the socket is
 * destroyed (its write queue emptied), so it cannot tell.
 */
const lost = new WeakSet<ServerResponse>();

/**
 * After a reply's last write (`end()`): when its socket took it all at once (every reply its client
 * reads, short of one larger than the socket's buffers), nothing — no timer, no listener. Else the
 * reply is cut off (destroyed) once its client has taken nothing of it for `timeoutMs`, and one
 * that closes before it is all taken counts as not delivered ({@link delivered}). True when bytes
 * were left unsent (its `close` tells when it is delivered, or cut).
 */
export function deliverWithin(outgoing: ServerResponse, timeoutMs: number): boolean {
  if (outgoing.writableFinished || outgoing.destroyed || !holdsUnsent(outgoing)) return false;
  untilTaken(outgoing, timeoutMs, 'finish', (taken) => {
    if (!taken) lost.add(outgoing);
  });
  return true;
}

/** Whether the reply is written but not yet all taken by its client ({@link deliverWithin} watching it). */
export function undelivered(outgoing: ServerResponse): boolean {
  return !outgoing.writableFinished && !outgoing.destroyed && holdsUnsent(outgoing);
}

/** Whether the reply reached its client whole: finished, and not one {@link deliverWithin} saw close first. */
export function delivered(outgoing: ServerResponse): boolean {
  return outgoing.writableFinished && !lost.has(outgoing);
}

/** Responses {@link deliverAfterEnd} already watches. */
const endWatched = new WeakSet<ServerResponse>();

/**
 * For a reply a host server writes (the Hono app mounted, served by @hono/node-server): once the
 * host ends it, it is cut off as the gateway's own server's replies are ({@link deliverWithin}) —
 * the response's `end` is wrapped for this one response, and a reply its socket takes whole costs
 * nothing more. A response already ended is watched at once.
 */
export function deliverAfterEnd(outgoing: ServerResponse, timeoutMs: number): void {
  if (outgoing.writableEnded) {
    deliverWithin(outgoing, timeoutMs);
    return;
  }
  if (endWatched.has(outgoing)) return;
  endWatched.add(outgoing);
  const end = outgoing.end;
  outgoing.end = function (this: ServerResponse, ...args: Parameters<ServerResponse['end']>) {
    outgoing.end = end;
    const result = end.apply(this, args);
    deliverWithin(this, timeoutMs);
    return result;
  } as ServerResponse['end'];
}
