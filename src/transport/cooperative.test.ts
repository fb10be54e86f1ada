import { describe, expect, it, vi } from 'vitest';
import { shouldYield, sliceBudgetMs, yieldFullTurn, yieldToEventLoop } from './cooperative.ts';

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Parsing stand-in.
  }
}

describe('cooperative parsing slices', () => {
  it('asks to yield once a macrotask has parsed longer than the slice, and not after a yield', async () => {
    await yieldToEventLoop();
    expect(shouldYield()).toBe(false); // opens the slice
    busy(sliceBudgetMs + 2);
    expect(shouldYield()).toBe(true);
    await Promise.resolve(); // a microtask is still the same turn
    expect(shouldYield()).toBe(true);
    await yieldToEventLoop();
    expect(shouldYield()).toBe(false);
  });

  it('a yield lets a due timer run before parsing resumes', async () => {
    await yieldToEventLoop();
    let fired = false;
    setTimeout(() => (fired = true), 0);
    shouldYield();
    busy(sliceBudgetMs + 2);
    expect(shouldYield()).toBe(true);
    await yieldToEventLoop();
    expect(fired).toBe(true);
  });
});

describe('a full turn between the steps of a large body', () => {
  it("waits on Node's own timer: a test that fakes the global timers is not held until it advances them", async () => {
    vi.useFakeTimers();
    try {
      // With the global setTimeout faked, a turn waited on it would never end (the test's timeout).
      await yieldFullTurn();
    } finally {
      vi.useRealTimers();
    }
  }, 2000);

  it('lets a timer that is due run before it resolves', async () => {
    let fired = false;
    setTimeout(() => (fired = true), 0);
    await yieldFullTurn();
    expect(fired).toBe(true);
  });

  it('releases one waiting step per round of the loop, however many bodies wait at once', async () => {
    const log: string[] = [];
    let ticking = true;
    const tick = () => {
      log.push('round');
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // Three large bodies, each three steps long, each step after a turn.
    const body = async (name: string) => {
      for (let step = 0; step < 3; step++) {
        await yieldFullTurn();
        busy(2);
        log.push(name);
      }
    };
    await Promise.all([body('a'), body('b'), body('c')]);
    ticking = false;
    const steps = log.filter((entry) => entry !== 'round');
    expect(steps).toHaveLength(9);
    // Between any two steps the loop went round (its check phase ran): no two steps back to back.
    for (let index = 1; index < log.length; index++)
      if (log[index] !== 'round') expect(log[index - 1], log.join(' ')).toBe('round');
  });
});
