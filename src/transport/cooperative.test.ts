import { describe, expect, it } from 'vitest';
import { shouldYield, sliceBudgetMs, yieldToEventLoop } from './cooperative.ts';

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
