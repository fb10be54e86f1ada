/** CallTimers: first byte until the headers, then idle gaps; one timer serves both phases. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AbortCause } from './cancellation.ts';
import { CallTimers } from './http.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function timersOf(firstByteTimeoutMs: number, idleTimeoutMs: number) {
  const controller = new AbortController();
  const timers = new CallTimers(controller, { timeoutMs: 600_000, firstByteTimeoutMs, idleTimeoutMs });
  const cause = () => controller.signal.reason as AbortCause | undefined;
  return { timers, cause };
}

describe.each([
  ['the same length', 100, 100],
  ['different lengths', 100, 40],
])('CallTimers, first byte and idle of %s', (_name, firstByte, idle) => {
  it('nothing runs before the request is on the wire; then the first byte times out', () => {
    const { timers, cause } = timersOf(firstByte, idle);
    vi.advanceTimersByTime(firstByte * 3);
    expect(cause()).toBeUndefined();
    timers.requestSent();
    vi.advanceTimersByTime(firstByte - 1);
    expect(cause()).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(cause()).toEqual({ kind: 'timeout', which: 'first-byte', ms: firstByte });
  });

  it('after the headers, an idle gap times out as idle; each chunk restarts it', () => {
    const { timers, cause } = timersOf(firstByte, idle);
    timers.requestSent();
    vi.advanceTimersByTime(firstByte - 10);
    timers.headersReceived();
    vi.advanceTimersByTime(idle - 1);
    timers.chunkReceived();
    vi.advanceTimersByTime(idle - 1);
    expect(cause()).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(cause()).toEqual({ kind: 'timeout', which: 'idle', ms: idle });
  });

  it('a paused reader is not idle; resumed, the gap counts afresh; disposed, nothing fires', () => {
    const { timers, cause } = timersOf(firstByte, idle);
    timers.requestSent();
    timers.headersReceived();
    timers.pauseIdle();
    vi.advanceTimersByTime(idle * 5);
    expect(cause()).toBeUndefined();
    timers.resumeIdle();
    vi.advanceTimersByTime(idle - 1);
    expect(cause()).toBeUndefined();
    timers.dispose();
    vi.advanceTimersByTime(idle * 5);
    expect(cause()).toBeUndefined();
  });

  it('pausing before the headers leaves the first-byte timer running', () => {
    const { timers, cause } = timersOf(firstByte, idle);
    timers.requestSent();
    timers.pauseIdle();
    timers.resumeIdle();
    vi.advanceTimersByTime(firstByte);
    expect(cause()).toEqual({ kind: 'timeout', which: 'first-byte', ms: firstByte });
  });
});
