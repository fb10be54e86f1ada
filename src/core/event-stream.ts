/** A small push-based async-iterable stream of events with a final result. */

/**
 * An async-iterable of events that also resolves a final result. The producer calls `push`, then
 * `end(result)` or `fail(error, result?)`. Iterate it once; or call `result()` without iterating
 * (events are then buffered and dropped). Breaking out of a `for await` calls `onReturn` (used to
 * abort the underlying request).
 */
export class EventStream<Event, Result> implements AsyncIterable<Event> {
  private readonly queue: Event[] = [];
  private head = 0;
  private waiting: ((value: IteratorResult<Event>) => void) | undefined;
  private waitingReject: ((error: unknown) => void) | undefined;
  private done = false;
  private error: unknown;
  private failed = false;
  private readonly resultPromise: Promise<Result>;
  private resolveResult!: (result: Result) => void;
  private rejectResult!: (error: unknown) => void;
  private iterating = false;
  private discarding = false;

  private readonly onReturn: (() => void) | undefined;

  constructor(onReturn?: () => void) {
    this.onReturn = onReturn;
    this.resultPromise = new Promise<Result>((resolve, reject) => {
      this.resolveResult = resolve;
      this.rejectResult = reject;
    });
    // A caller that only iterates must not see an unhandled rejection from result().
    this.resultPromise.catch(() => {});
  }

  /** Delivers one event to the consumer. Ignored after the stream ended. */
  push(event: Event): void {
    if (this.done || this.discarding) return;
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      this.waitingReject = undefined;
      waiting({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  /** Ends the stream successfully with its result. */
  end(result: Result): void {
    if (this.done) return;
    this.done = true;
    this.resolveResult(result);
    this.wake();
  }

  /** Ends the stream with an error, raised to the consumer after the buffered events. */
  fail(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.failed = true;
    this.error = error;
    this.rejectResult(error);
    this.wake();
  }

  /** The final result (rejects with the stream's error). */
  result(): Promise<Result> {
    if (!this.iterating) {
      // Nobody will read the events: do not keep them.
      this.discarding = true;
      this.queue.length = 0;
      this.head = 0;
    }
    return this.resultPromise;
  }

  private wake(): void {
    const waiting = this.waiting;
    if (waiting === undefined) return;
    this.waiting = undefined;
    const reject = this.waitingReject;
    this.waitingReject = undefined;
    if (this.failed) reject?.(this.error);
    else waiting({ value: undefined, done: true });
  }

  private next(): Promise<IteratorResult<Event>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head++] as Event;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.done) {
      if (this.failed) {
        this.failed = false; // raise once
        return Promise.reject(this.error);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.waitingReject = reject;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<Event> {
    this.iterating = true;
    return {
      next: () => this.next(),
      return: async () => {
        if (!this.done) this.onReturn?.();
        return { value: undefined, done: true };
      },
    };
  }
}
