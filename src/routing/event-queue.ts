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
