import { describe, expect, it } from 'vitest';
import { abortCause, CancellationRegistry } from './cancellation.ts';

describe('CancellationRegistry', () => {
  it('cancel(requestId) aborts the call, is idempotent, and reports whether it cancelled something', () => {
    const registry = new CancellationRegistry();
    const controller = new AbortController();
    registry.register('r1', controller);
    expect(registry.cancel('r1')).toBe(true);
    expect(abortCause(controller.signal)).toEqual({ kind: 'cancelled' });
    expect(registry.cancel('r1')).toBe(false);
    expect(registry.cancel('unknown')).toBe(false);
  });

  it('two concurrent calls sharing a request id are both cancellable', () => {
    const registry = new CancellationRegistry();
    const first = new AbortController();
    const second = new AbortController();
    registry.register('same', first);
    const unregisterSecond = registry.register('same', second);
    unregisterSecond();
    registry.register('same', second);
    expect(registry.cancel('same')).toBe(true);
    expect([first.signal.aborted, second.signal.aborted]).toEqual([true, true]);
  });

  it('a call sharing the id of one that ended alone is still cancellable; the ended one is not aborted', () => {
    const registry = new CancellationRegistry();
    const first = new AbortController();
    const second = new AbortController();
    const unregisterFirst = registry.register('same', first);
    registry.register('same', second);
    unregisterFirst();
    expect(registry.cancel('same')).toBe(true);
    expect([first.signal.aborted, second.signal.aborted]).toEqual([false, true]);
    registry.register('other', first);
    registry.cancelAll();
    expect(first.signal.aborted).toBe(true);
    expect(registry.cancel('other')).toBe(false);
  });

  it("a caller's AbortSignal aborts the call, also when it was aborted before registering", () => {
    const registry = new CancellationRegistry();
    const controller = new AbortController();
    registry.register('r', controller, AbortSignal.abort());
    expect(controller.signal.aborted).toBe(true);
  });
});
