/** LruCache: the least recently set or read entry goes first; reading the newest entry again is free and changes nothing. */
import { describe, expect, it } from 'vitest';
import { LruCache } from './lru.ts';

describe('LruCache', () => {
  it('evicts the least recent entry, reads counting as use', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.size]).toEqual([1, 3, 2]);
  });

  it('reading the newest entry again and again keeps the order: the oldest still goes first', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    for (let read = 0; read < 5; read++) expect(cache.get('b')).toBe(2);
    cache.set('c', 3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(2);
  });

  it('a value set again, a cleared cache and a one-entry cache answer what the map holds', () => {
    const cache = new LruCache<string, number>(1);
    cache.set('a', 1);
    cache.set('a', 2);
    expect(cache.get('a')).toBe(2);
    cache.set('b', 3);
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, 3]);
    cache.clear();
    expect([cache.get('b'), cache.size]).toEqual([undefined, 0]);
  });
});
