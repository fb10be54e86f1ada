/** Small parts of a routed stream: the queue of events it owes its reader, and its settlement. */
import type { StreamEvent } from '../core/events.ts';

/** Events to hand out before reading the adapter again (held-back preamble, the priced finish). */
export class EventQueue {
  private items: StreamEvent[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(event: StreamEvent): void {
    this.items.push(event);
  }

  /** The next event, or undefined when none is queued. */
  shift(): StreamEvent | undefined {
    if (this.head === this.items.length) return undefined;
    const value = this.items[this.head++]!;
    if (this.head === this.items.length) this.clear();
    return value;
  }

  /** Takes `events` (an array nobody else keeps) as the queue. */
  adopt(events: StreamEvent[]): void {
    this.items = events;
    this.head = 0;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

/** A promise with its resolve and reject at hand; an unobserved rejection is never reported as unhandled. */
export class Settlement<Value> {
  readonly promise: Promise<Value>;
  resolve!: (value: Value) => void;
  reject!: (error: unknown) => void;

  constructor() {
    this.promise = new Promise<Value>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.promise.catch(() => {});
  }
}

const finished: IteratorResult<StreamEvent> = { value: undefined, done: true };

/**
 * The events a routed stream read ahead for a reader that is iterating but not pulling (it asked
 * for `result()` inside its own loop): handed out in order, then the end (or the call's error,
 * raised once). The reader waits here when it has caught up.
 */
export class ReadAhead {
  private readonly events = new EventQueue();
  /** Set once the call has ended: `true`, or the error to raise (once). */
  private end: true | { error: unknown } | undefined;
  private waiter: Settlement<void> | undefined;

  push(event: StreamEvent): void {
    this.events.push(event);
    this.wake();
  }

  /** The call ended, with `error` when it failed (raised to the reader after the events). */
  finish(failure?: { error: unknown }): void {
    this.end = failure ?? true;
    this.wake();
  }

  /** The reader stopped: the events read ahead are dropped. */
  clear(): void {
    this.events.clear();
  }

  /** The next event now, or undefined (see `RoutedStream.poll`). */
  poll(): IteratorResult<StreamEvent> | undefined {
    const event = this.events.shift();
    return event === undefined ? undefined : { value: event, done: false };
  }

  /** The reader's next step: an event read ahead, the end, or a wait for either. */
  next(): Promise<IteratorResult<StreamEvent>> {
    const event = this.events.shift();
    if (event !== undefined) return Promise.resolve({ value: event, done: false });
    const end = this.end;
    if (end === true) return Promise.resolve(finished);
    if (end !== undefined) {
      this.end = true;
      return Promise.reject(end.error);
    }
    this.waiter ??= new Settlement<void>();
    return this.waiter.promise.then(() => this.next());
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve();
  }
}
