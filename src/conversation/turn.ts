/** A streamed turn you can iterate for events or simply await for the reply. */
import type { StreamEvent } from '../core/events.ts';
import type { Reply } from './helpers.ts';

/** What a turn reads: events to iterate once, and the final reply. */
export interface TurnSource extends AsyncIterable<StreamEvent> {
  result(): Promise<Reply>;
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

  then<Fulfilled = Reply, Rejected = never>(
    onFulfilled?: ((reply: Reply) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onRejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    return this.events.result().then(onFulfilled, onRejected);
  }
}

/** A turn that fails at once with `error`: iteration throws it, `result()` rejects with it (no unhandled rejection). */
export function failedTurn(error: unknown): TurnSource {
  const rejected = Promise.reject(error) as Promise<Reply>;
  rejected.catch(() => {});
  return {
    result: () => rejected,
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.reject(error),
      return: () => Promise.resolve({ done: true as const, value: undefined }),
    }),
  };
}
