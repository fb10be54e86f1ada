import { describe, expect, it } from 'vitest';
import { stateSuite } from '../../test/support/state-suite.ts';
import { createStateStore, redisTarget } from './create.ts';
import { createMemoryStateStore } from './memory.ts';
import { periodsOf } from './types.ts';

stateSuite('the memory store', (now, groups) => createMemoryStateStore({ now, ...groups }));

describe('memory store', () => {
  it('stored values expire after their TTL and the store keeps at most maxValues', async () => {
    let now = 0;
    const store = createMemoryStateStore({ now: () => now, maxValues: 2 });
    await store.set('a', '1', 10);
    now += 10_000;
    expect(await store.get('a')).toBeUndefined();
    await store.set('b', '2', 60);
    await store.set('c', '3', 60);
    await store.set('d', '4', 60);
    expect([await store.get('b'), await store.get('c'), await store.get('d')]).toEqual([undefined, '3', '4']);
  });

  it('stored values are bounded in bytes: the oldest go first, one too large is not kept, expired ones make room', async () => {
    let now = 0;
    const store = createMemoryStateStore({ now: () => now, maxValueBytes: 100, sweepMs: 5 });
    await store.set('a', 'x'.repeat(20), 60);
    await store.set('b', 'y'.repeat(20), 60);
    await store.set('c', 'z'.repeat(20), 60);
    expect([await store.get('a'), await store.get('b'), await store.get('c')]).toEqual([
      undefined,
      'y'.repeat(20),
      'z'.repeat(20),
    ]);
    await store.set('big', 'w'.repeat(51), 60);
    expect(await store.get('big')).toBeUndefined();
    now += 61_000;
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The expired values are gone: a value of half the cap fits.
    await store.set('d', 'v'.repeat(50), 60);
    expect(await store.get('d')).toBe('v'.repeat(50));
    await store.close();
  });

  it('UTC periods: day and month from the clock', () => {
    expect(periodsOf(Date.UTC(2026, 0, 31, 23, 59))).toEqual({ day: '20260131', month: '202601' });
  });

  it('createStateStore: memory by default; anything but memory or a redis URL is refused naming the setting', () => {
    expect(createStateStore().availability).toBeDefined();
    expect(() => createStateStore({ state: 'http://example.com' })).toThrow(/gateway\.state/);
  });
});

describe('createStateStore URLs', () => {
  it('redis:// and valkey:// are plain TCP, rediss:// and valkeys:// TLS, +cluster a Cluster seed', () => {
    expect(redisTarget('redis://127.0.0.1:6379')).toEqual({ url: 'redis://127.0.0.1:6379', cluster: false });
    expect(redisTarget('valkey://h:1/2')).toEqual({ url: 'redis://h:1/2', cluster: false });
    expect(redisTarget('rediss://h:1')).toEqual({ url: 'rediss://h:1', cluster: false });
    expect(redisTarget('valkeys+cluster://h:1')).toEqual({ url: 'rediss://h:1', cluster: true });
    expect(redisTarget('http://h')).toBeUndefined();
  });
});
