import { describe, expect, it, vi } from 'vitest';
import { responseKey, scopeOf, scopeOfStoreKey } from './artifacts.ts';
import { createMemoryStore, createSharedStore } from './store.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { maxEscapedKeys } from '../core/json-text.ts';

describe('createMemoryStore', () => {
  it('an expired entry is gone for reads (the timer sweeps it), and the room it held is reused', async () => {
    vi.useFakeTimers();
    try {
      let time = 0;
      const store = createMemoryStore({ now: () => time, sweepMs: 1000, maxBytes: 200 });
      await store.put('a', 'x'.repeat(40), 500);
      time = 600;
      vi.advanceTimersByTime(1000);
      // Two more of the same size (84 bytes each) fit under the cap.
      await store.put('b', 'y'.repeat(40), 10_000);
      await store.put('c', 'z'.repeat(40), 10_000);
      expect(await store.get('a')).toBeUndefined();
      expect(await store.get('b')).toBe('y'.repeat(40));
      await store.close?.();
    } finally {
      vi.useRealTimers();
    }
  });

  it('evicts the oldest entries past the byte cap, and keeps no entry larger than the cap', async () => {
    const store = createMemoryStore({ maxBytes: 200 });
    await store.put('a', 'a'.repeat(40), 60_000);
    await store.put('b', 'b'.repeat(40), 60_000);
    await store.put('c', 'c'.repeat(40), 60_000);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toBe('b'.repeat(40));
    expect(await store.get('c')).toBe('c'.repeat(40));
    await store.put('huge', 'h'.repeat(100), 60_000);
    expect(await store.get('huge')).toBeUndefined();
    expect(await store.get('c')).toBe('c'.repeat(40));
    await store.close?.();
  });

  it('evicts the oldest past the entry cap, and a read gets its own copy', async () => {
    const store = createMemoryStore({ maxEntries: 2 });
    await store.put('a', { n: 1 }, 60_000);
    await store.put('b', { n: 2 }, 60_000);
    await store.put('a', { n: 3 }, 60_000);
    await store.put('c', { n: 4 }, 60_000);
    expect(await store.get('b')).toBeUndefined();
    const read = (await store.get('a')) as { n: number };
    read.n = 99;
    expect(await store.get('a')).toEqual({ n: 3 });
    await store.close?.();
  });

  it('when the store is full, a key holding more than half of it gives up its own oldest, never every other key’s entries', async () => {
    const store = createMemoryStore({ maxEntries: 10, groupOf: scopeOfStoreKey });
    const victim = (n: number) => responseKey(scopeOf('victim'), `resp_${n}`);
    for (let n = 0; n < 3; n++) await store.put(victim(n), { n }, 60_000);
    // Another key floods the store with 1,000 entries (as tiny Responses requests do).
    for (let n = 0; n < 1000; n++) await store.put(responseKey(scopeOf('flood'), `resp_${n}`), { n }, 60_000);
    for (let n = 0; n < 3; n++) expect(await store.get(victim(n))).toEqual({ n });
    // The flooder keeps the rest: its newest seven.
    expect(await store.get(responseKey(scopeOf('flood'), 'resp_993'))).toEqual({ n: 993 });
    expect(await store.get(responseKey(scopeOf('flood'), 'resp_992'))).toBeUndefined();
    await store.close?.();
  });

  it('a key past its bound (maxGroupBytes) gives up its own oldest whatever room the store has; an entry over it alone is refused', async () => {
    const store = createMemoryStore({ groupOf: scopeOfStoreKey, maxGroupBytes: 1000 });
    const entry = (key: string, n: number) => responseKey(scopeOf(key), `resp_${n}`);
    await store.put(entry('b', 0), 'b'.repeat(900), 60_000);
    // 302 bytes of JSON each (the quotes): a's fourth makes 1,208 and its first goes.
    for (let n = 0; n < 4; n++) await store.put(entry('a', n), 'a'.repeat(300), 60_000);
    expect(await store.get(entry('a', 0))).toBeUndefined();
    expect(await store.get(entry('a', 1))).toBe('a'.repeat(300));
    expect(await store.get(entry('b', 0))).toBe('b'.repeat(900));
    await expect(store.put(entry('a', 9), 'x'.repeat(1000), 60_000)).rejects.toThrow(RangeError);
    expect(await store.get(entry('a', 3))).toBe('a'.repeat(300));
    await store.close?.();
  });

  it('a store with one key (or none) keeps its whole bounds', async () => {
    const store = createMemoryStore({ maxEntries: 10, groupOf: scopeOfStoreKey });
    for (let n = 0; n < 12; n++) await store.put(responseKey(scopeOf('only'), `resp_${n}`), { n }, 60_000);
    expect(await store.get(responseKey(scopeOf('only'), 'resp_2'))).toEqual({ n: 2 });
    expect(await store.get(responseKey(scopeOf('only'), 'resp_1'))).toBeUndefined();
    await store.close?.();
  });

  it('a value that cannot be read back (more escaped keys than the parse takes) is no value, not a throw', async () => {
    const store = createMemoryStore();
    const keys = Object.fromEntries(
      Array.from({ length: maxEscapedKeys + 1 }, (_, index) => [`\n${index}`, 0]),
    );
    await store.put('response:1.a:resp_1', { keys }, 60_000);
    await expect(store.get('response:1.a:resp_1')).resolves.toBeUndefined();
    await store.close?.();
  }, 20_000);

  it('a value that does not parse is read as none with a WARN naming the entry (memory and shared store), never silently', async () => {
    const logger = createMemoryLogger();
    const keys = Object.fromEntries(
      Array.from({ length: maxEscapedKeys + 1 }, (_, index) => [`"${index}`, 0]),
    );
    const memory = createMemoryStore({ logger });
    await memory.put('response:1.a:resp_1', { keys }, 60_000);
    await expect(memory.get('response:1.a:resp_1')).resolves.toBeUndefined();
    const texts = new Map([['response:1.a:resp_2', 'not json']]);
    const shared = createSharedStore({ get: async (id) => texts.get(id), set: async () => {} }, logger);
    await expect(shared.get('response:1.a:resp_2')).resolves.toBeUndefined();
    expect(logger.entries.map(({ message, fields }) => [message, fields.entry, fields.error])).toEqual([
      ['gateway: a stored value could not be read', 'response:1.a:resp_1', 'TooManyEscapedKeysError'],
      ['gateway: a stored value could not be read', 'response:1.a:resp_2', 'SyntaxError'],
    ]);
    await memory.close?.();
  }, 20_000);

  it('scopeOfStoreKey reads the length-prefixed scope, whatever the name holds', () => {
    expect(scopeOfStoreKey(responseKey(scopeOf('team:a.b'), 'resp_1'))).toBe(scopeOf('team:a.b'));
    expect(scopeOfStoreKey(responseKey(scopeOf(undefined), 'resp_1'))).toBe('');
    expect(scopeOfStoreKey('call:3.abc:call_1')).toBe('3.abc');
    expect(scopeOfStoreKey('unscoped')).toBe('');
  });
});
