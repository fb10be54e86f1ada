/** Cooperative scheduling: long runs of stream parsing give the event loop a turn. */
// Node's own timer, not the global one: a test that fakes the global timers (vitest, Jest, sinon)
// must not hold a large request's send or a gateway's read until it advances its fake clock.
import { setTimeout as realTimeout } from 'node:timers';

/** Longest stretch of parsing, in ms, before a stream yields to timers and I/O (4 ms cost ~10% CPU in the bulk bench). */
export const sliceBudgetMs = 10;

let sliceStartedAt = -1;

function endSlice(): void {
  sliceStartedAt = -1;
}

/**
 * True when the current macrotask has already run longer than {@link sliceBudgetMs}. The first call
 * in a macrotask opens a slice (and schedules its end on the check phase); every stream in the
 * process shares the slice, so 1,000 busy streams cannot keep the loop from timers and sockets.
 * Costs one `performance.now()` per call.
 */
export function shouldYield(): boolean {
  const now = performance.now();
  if (sliceStartedAt < 0) {
    sliceStartedAt = now;
    setImmediate(endSlice);
    return false;
  }
  return now - sliceStartedAt > sliceBudgetMs;
}

/** Resolves on the event loop's next check phase, after pending I/O and timers have run. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The steps waiting for their turn (see {@link yieldFullTurn}), first come first served. */
const waiting: Array<() => void> = [];
let gateArmed = false;

/** Releases the first waiting step; the next one waits for the loop to go round again. */
function releaseOne(): void {
  gateArmed = false;
  const next = waiting.shift();
  if (waiting.length > 0) armGate();
  next?.();
}

function armGate(): void {
  gateArmed = true;
  realTimeout(releaseOne, 0);
}

/**
 * Resolves once the event loop has gone round: polled for I/O and run its due timers, whatever
 * phase it is called from (`setImmediate` called from an I/O callback runs before the loop polls
 * again). Between the long steps of one large piece of work — a large request body's parse,
 * conversion, routing and send — so that other clients' sockets are served between them. Costs up
 * to the shortest timer (1 ms) of latency. One step is released per round of the loop, however
 * many bodies are waiting: a timer each would all fall due in one timers phase, and their steps
 * would run back to back, other sockets waiting for all of them.
 */
export function yieldFullTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!gateArmed) armGate();
  });
}
