/** A streamed turn you can iterate for events or simply await for the reply. */
import { EventStream } from '../core/event-stream.ts';
import type { StreamEvent } from '../core/events.ts';
import { createRequestId } from '../core/ids.ts';
import { StreamBuilder } from '../core/stream-builder.ts';
import type { Reply } from '../core/reply.ts';

/** What a turn reads: events to iterate once, and the final reply. */
export interface TurnSource extends AsyncIterable<StreamEvent> {
  result(): Promise<Reply>;
  /** Whether the call has ended (reply, error, or stopped by its reader and settled). */
  hasEnded(): boolean;
}

/**
 * One streamed call: `for await (const event of turn)` yields the stream events;
 * `await turn` (or `turn.result()`) gives the reply. Iterate at most once.
 */
export class Turn implements AsyncIterable<StreamEvent>, PromiseLike<Reply> {
  private readonly events: TurnSource;

  constructor(events: TurnSource) {
    this.events = events;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    return this.events[Symbol.asyncIterator]();
  }

  /** The reply (rejects with the classified error). */
  result(): Promise<Reply> {
    return this.events.result();
  }

  /**
   * Whether the call has ended — with its reply, an error, or stopped by its reader and settled (a
   * `break` aborts it; `await turn` waits for that) — without touching its events.
   */
  hasEnded(): boolean {
    return this.events.hasEnded();
  }

  then<Fulfilled = Reply, Rejected = never>(
    onFulfilled?: ((reply: Reply) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onRejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    return this.events.result().then(onFulfilled, onRejected);
  }
}

/**
 * A turn refused before any provider was chosen (invalid input): like an adapter's refused stream,
 * it yields `message-start` and `finish` (reason `error`), then raises `error`; `result()` rejects
 * with it. Never an unhandled rejection.
 */
export function failedTurn(error: unknown, model = 'unknown'): TurnSource {
  const events = new EventStream<StreamEvent, Reply>();
  const context = {
    requestId: createRequestId(),
    provider: 'switchyard',
    model,
    startedAt: performance.now(),
  };
  new StreamBuilder(context, (event) => events.push(event)).finish('error');
  events.fail(error);
  return events;
}

/**
 * `turn`, with `handle` called once with its error before its reader sees it (`await`, `result()`
 * or the iterator's rejection).
 */
export function onTurnFailure(turn: Turn, handle: (error: unknown) => void): Turn {
  let handled = false;
  const rethrow = (error: unknown): never => {
    if (!handled) {
      handled = true;
      handle(error);
    }
    throw error;
  };
  return new Turn({
    hasEnded: () => turn.hasEnded(),
    result: () => turn.result().catch(rethrow),
    [Symbol.asyncIterator]: () => {
      const iterator = turn[Symbol.asyncIterator]();
      return {
        next: () => iterator.next().catch(rethrow),
        return: (value?: unknown) =>
          iterator.return?.(value) ?? Promise.resolve({ done: true as const, value: undefined }),
      };
    },
  });
}
