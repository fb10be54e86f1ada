/**
 * A streamed reply's body: pulled by the client's reads, so a slow client pauses the upstream. Each
 * read takes every event the upstream has already delivered — frames that arrived in one upstream
 * chunk leave in one write (one syscall, not one per token) — and waits for more only when none is
 * ready. A failure after content is the protocol's in-band error; a client that goes away cancels
 * the upstream call.
 */
import type { ServerResponse } from 'node:http';
import { serializeFrame } from '../codecs/frames.ts';
import type { StreamEncoder, WireError, WireFrame } from '../codecs/types.ts';
import type { StreamEvent } from '../core/events.ts';
import { toWireError } from './errors.ts';
import { deliverWithin, drained } from './delivery.ts';

/** Frames to text: SSE, or the items of one JSON array (Gemini without `alt=sse`). */
export interface Framer {
  text(frames: WireFrame[]): string;
  end(): string;
}

export function createFramer(jsonArray: boolean): Framer {
  let count = 0;
  return {
    text(frames) {
      let text = '';
      for (const frame of frames) {
        if (!jsonArray) text += serializeFrame(frame);
        else text += `${count++ === 0 ? '[' : ',\r\n'}${'raw' in frame ? frame.raw : frame.data}`;
      }
      return text;
    },
    end: () => (!jsonArray ? '' : count === 0 ? '[]' : ']'),
  };
}

export interface BodyParts {
  iterator: AsyncIterator<StreamEvent>;
  /** The frames of one event (may wait on the state store at the finish). */
  onEvent(event: StreamEvent): WireFrame[] | Promise<WireFrame[]>;
  framer: Framer;
  streamEncoder: StreamEncoder;
  controller: AbortController;
  /** Called once when the body ends, fails or is cancelled. */
  finish(): void;
  /** Called when the events end without an error; throws to end the body with an in-band error instead. */
  endOfEvents?(): void;
  /** Called when the client goes away before the end. */
  onCancel(): void;
  /** A failure after content: its class and status for the access log. */
  onError(errorClass: string, status: number): void;
  /** The wire error of a failure after content (default `toWireError`). */
  wireError?(error: unknown): WireError;
  /** Frames already produced (the held-back preamble and first content). */
  first: WireFrame[];
  done: boolean;
}

const tick = Symbol('tick');
/** A read returns once it holds this many characters (UTF-16 units), however much more is ready. */
const maxChunk = 64 * 1024;
type Tick = typeof tick;

/** The body's text, one chunk per read; undefined once it has ended. */
export interface BodyPump {
  /** Every frame ready now (waiting for one when none is); undefined once the body has ended. */
  read(): Promise<string | undefined>;
  /** The frames produced before the pump (the held-back preamble and first content), taken once without waiting. */
  takeFirst(): string;
  /** True once the last frame has been read. */
  readonly ended: boolean;
  cancel(): Promise<void>;
}

/** An iterator that hands out a ready event without a promise (the front door's routed stream). */
interface Pollable {
  poll(): IteratorResult<StreamEvent> | undefined;
}

export function createBodyPump(parts: BodyParts): BodyPump {
  return new Pump(parts);
}

/**
 * A class, not an object literal: an `ended` getter closure per call would give every pump its own
 * hidden class, which keeps each call's objects alive through young-generation GCs.
 */
class Pump implements BodyPump {
  readonly #parts: BodyParts;
  readonly #pollable: Pollable | undefined;
  #ended: boolean;
  #held: string | undefined;
  #pending: Promise<IteratorResult<StreamEvent>> | undefined;
  /** The client went away: a read still running stops at its next step and reports nothing. */
  #cancelled = false;
  #finished = false;

  constructor(parts: BodyParts) {
    this.#parts = parts;
    const maybe = parts.iterator as AsyncIterator<StreamEvent> & Partial<Pollable>;
    this.#pollable = typeof maybe.poll === 'function' ? (maybe as Pollable) : undefined;
    this.#ended = parts.done;
    this.#held = parts.framer.text(parts.first) + (parts.done ? parts.framer.end() : '');
    if (this.#ended) this.#finish();
  }

  get ended(): boolean {
    return this.#ended && this.#held === undefined;
  }

  takeFirst(): string {
    const text = this.#held ?? '';
    this.#held = undefined;
    return text;
  }

  async read(): Promise<string | undefined> {
    const { iterator, framer } = this.#parts;
    let text = this.#held ?? '';
    this.#held = undefined;
    if (this.#ended) return text === '' ? undefined : text;
    // Resolves after the I/O callbacks of this loop turn: an event not ready by then waits for the next read.
    let later: Promise<Tick> | undefined;
    try {
      for (;;) {
        // Events already buffered: taken without a promise or a race each (never while a `next()`
        // is outstanding: that one delivers first).
        const pollable = this.#pending === undefined ? this.#pollable : undefined;
        for (let step = pollable?.poll(); step !== undefined; step = pollable!.poll()) {
          let added = this.#frames(step.value);
          if (added instanceof Promise) added = await added;
          if (added === undefined) return undefined;
          text += added;
          if (text.length >= maxChunk) return text;
        }
        const next = this.#pending ?? iterator.next();
        this.#pending = undefined;
        let result: IteratorResult<StreamEvent> | Tick;
        if (text === '') result = await next;
        else {
          later ??= new Promise<Tick>((resolve) => setImmediate(resolve, tick));
          result = await Promise.race([next, later]);
          if (result === tick) {
            this.#pending = next;
            return text;
          }
        }
        if (this.#cancelled) return undefined;
        if (result.done === true) {
          this.#parts.endOfEvents?.();
          this.#ended = true;
          this.#finish();
          return text + framer.end();
        }
        let added = this.#frames(result.value);
        if (added instanceof Promise) added = await added;
        if (added === undefined) return undefined;
        text += added;
        if (text.length >= maxChunk) return text;
      }
    } catch (error) {
      if (this.#cancelled) return undefined;
      this.#ended = true;
      const wire = (this.#parts.wireError ?? toWireError)(error);
      this.#parts.onError(wire.errorClass, wire.status);
      // In-band, never a clean finish — a shutdown's abort too (only a client that left gets nothing).
      text += framer.text(this.#parts.streamEncoder.error(wire));
      this.#finish();
      return text + framer.end();
    }
  }

  /** The text of one event (waiting on the state store at the finish); undefined once the client left. */
  #frames(event: StreamEvent): string | undefined | Promise<string | undefined> {
    const frames = this.#parts.onEvent(event);
    if (!(frames instanceof Promise)) return frames.length > 0 ? this.#parts.framer.text(frames) : '';
    return frames.then((ready) => (this.#cancelled ? undefined : this.#parts.framer.text(ready)));
  }

  async cancel(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#cancelled = true;
    this.#parts.controller.abort(new Error('client disconnected'));
    this.#parts.onCancel();
    this.#finish();
    await this.#parts.iterator.return?.();
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#parts.finish();
  }
}

const encoder = new TextEncoder();

/**
 * The pump as a web stream, starting with text already read from it. With `sendTimeoutMs` (a reply
 * the Hono app hands to a host server it does not own: a mounted app), the host's pulls are
 * watched: a body not pulled for that long — its host waiting for a socket its client does not
 * read, or a client that left unseen — is cut off ({@link watchPulls}).
 */
export function webBody(
  pump: BodyPump,
  head: string,
  sendTimeoutMs?: number,
  outgoing?: ServerResponse,
): ReadableStream<Uint8Array> {
  let watch: PullWatch | undefined;
  return new ReadableStream<Uint8Array>(
    {
      start(stream) {
        if (head !== '') stream.enqueue(encoder.encode(head));
        if (sendTimeoutMs !== undefined) watch = watchPulls(pump, stream, sendTimeoutMs, outgoing);
      },
      // A pull that enqueues nothing is not called again: read until there is text or the end.
      async pull(stream) {
        if (watch !== undefined) watch.pulling = true;
        for (;;) {
          const text = await pump.read();
          if (text === undefined) {
            watch?.end();
            return stream.close();
          }
          if (text === '') continue;
          stream.enqueue(encoder.encode(text));
          watch?.waitForPull();
          return;
        }
      },
      cancel: () => {
        watch?.end();
        return pump.cancel();
      },
    },
    { highWaterMark: 0 },
  );
}

/** The watch on a web body's pulls: one timer per reply, refreshed once per pull. */
interface PullWatch {
  /** A pull is running (the body waits on the upstream, not on its host): the timer is not a cut. */
  pulling: boolean;
  /** The pull has enqueued its text: the host has `timeoutMs` from now to pull again. */
  waitForPull(): void;
  /** The body has ended (closed or cancelled): the timer goes. */
  end(): void;
}

/**
 * The send timeout of a body its host pulls (`gateway.send_timeout_seconds`): once it has waited
 * `timeoutMs` for the host's next pull, the reply is cut off — Node's response destroyed when the
 * host is @hono/node-server (`outgoing`: its connection closes, the stream is cancelled), else the
 * stream errored (its host ends the response) — and the pump cancelled: the upstream call goes and
 * the reply is logged 499. A pull waiting on the upstream is not the client's: never a cut.
 */
function watchPulls(
  pump: BodyPump,
  stream: ReadableStreamDefaultController<Uint8Array>,
  timeoutMs: number,
  outgoing: ServerResponse | undefined,
): PullWatch {
  let ended = false;
  const watch: PullWatch = {
    pulling: false,
    waitForPull() {
      watch.pulling = false;
      timer.refresh();
    },
    end() {
      ended = true;
      clearTimeout(timer);
    },
  };
  const timer = setTimeout(() => {
    if (ended || watch.pulling) return;
    watch.end();
    if (outgoing !== undefined) outgoing.destroy();
    else stream.error(new Error(`the client took nothing of the reply for ${timeoutMs} ms`));
    void pump.cancel();
  }, timeoutMs);
  timer.unref();
  return watch;
}

/**
 * Writes the pump straight to Node's response: the headers leave with the first text in one write
 * (a web-stream body makes @hono/node-server flush the headers alone first: one more packet and
 * client wake-up per stream), then each read as it comes, waiting for `drain` when the socket is
 * full; a response closed before the end cancels the pump (and so the upstream call).
 */
export function writeToNode(
  pump: BodyPump,
  head: string,
  outgoing: ServerResponse,
  headers: Record<string, string>,
  sendTimeoutMs = defaultSendTimeoutMs,
): void {
  // Gone already: its close came before this listener could see it.
  if (outgoing.destroyed || outgoing.socket?.destroyed === true) {
    void pump.cancel();
    return;
  }
  const onClose = () => {
    if (!outgoing.writableFinished) void pump.cancel();
  };
  outgoing.once('close', onClose);
  outgoing.writeHead(200, headers);
  // No text yet (a preamble the protocol has no frame for): the headers go now, not with the first write.
  if (head === '') outgoing.flushHeaders();
  const full = head !== '' && !outgoing.write(head);
  // Node corks a chunked response's write until a tick it queued: read on after it, so that the
  // first bytes leave before the rest of a burst the upstream delivered is translated.
  process.nextTick(
    () => void drive(pump, outgoing, full, sendTimeoutMs).finally(() => outgoing.off('close', onClose)),
  );
}

/**
 * How long a client may take nothing of a stream (as nginx's `send_timeout`, between two writes)
 * before it is cut off (`gateway.send_timeout_seconds`). A client that stops reading keeps its
 * upstream call and that call's pooled connection; with enough of them (64 per provider by
 * default) every other key's calls to the provider wait.
 */
export const defaultSendTimeoutMs = 60_000;

/** Reads on while the client takes the text: `full` (a `write` that returned false) waits for `drain`. */
async function drive(
  pump: BodyPump,
  outgoing: ServerResponse,
  full: boolean,
  sendTimeoutMs: number,
): Promise<void> {
  try {
    for (;;) {
      if (full) await drained(outgoing, sendTimeoutMs);
      if (outgoing.destroyed) break;
      const text = await pump.read();
      if (outgoing.destroyed) break;
      if (text === undefined) {
        outgoing.end();
        // Its last bytes too: a client that stops reading at the end is cut off as midway.
        deliverWithin(outgoing, sendTimeoutMs);
        return;
      }
      full = text !== '' && !outgoing.write(text);
    }
  } catch {
    // The pump reports failures in band; anything else ends the response without a clean finish.
    outgoing.destroy();
  }
  // The client left (or the write failed): the upstream call goes too (once; a no-op after the end).
  await pump.cancel();
}
