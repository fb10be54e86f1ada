import { describe, expect, it } from 'vitest';
import { EventStream } from './event-stream.ts';

describe('EventStream', () => {
  it('delivers events pushed before and after the consumer waits, then ends', async () => {
    const stream = new EventStream<number, string>();
    stream.push(1);
    setTimeout(() => {
      stream.push(2);
      stream.end('done');
    }, 5);
    const seen: number[] = [];
    for await (const value of stream) seen.push(value);
    expect(seen).toEqual([1, 2]);
    expect(await stream.result()).toBe('done');
  });

  it('raises the error after the buffered events, and result() rejects', async () => {
    const stream = new EventStream<number, string>();
    stream.push(1);
    stream.fail(new Error('boom'));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const value of stream) seen.push(value);
      })(),
    ).rejects.toThrow('boom');
    expect(seen).toEqual([1]);
    await expect(stream.result()).rejects.toThrow('boom');
  });

  it('breaking out of for-await calls onReturn (the abort hook)', async () => {
    let returned = 0;
    const stream = new EventStream<number, string>(() => returned++);
    stream.push(1);
    stream.push(2);
    for await (const _ of stream) break;
    expect(returned).toBe(1);
  });

  it('result() alone does not retain events', async () => {
    const stream = new EventStream<number, string>();
    const result = stream.result();
    for (let value = 0; value < 1000; value++) stream.push(value);
    stream.end('ok');
    expect(await result).toBe('ok');
    expect((stream as unknown as { queue: number[] }).queue).toHaveLength(0);
  });

  it('ignores pushes after the end', async () => {
    const stream = new EventStream<number, string>();
    stream.end('x');
    stream.push(1);
    const seen: number[] = [];
    for await (const value of stream) seen.push(value);
    expect(seen).toEqual([]);
  });

  it('demand() asks the producer to wait at the high-water mark until the consumer drains', async () => {
    const stream = new EventStream<number, string>(undefined, 3);
    stream.push(1);
    stream.push(2);
    expect(stream.demand()).toBeUndefined();
    stream.push(3);
    const demand = stream.demand();
    expect(demand).toBeInstanceOf(Promise);
    let released = false;
    void demand?.then(() => (released = true));
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    await Promise.resolve();
    expect(released).toBe(false);
    await iterator.next();
    await Promise.resolve();
    expect(released).toBe(true);
    expect(stream.buffered).toBe(0);
  });

  it('demand() is released when the consumer stops reading or only wants the result', async () => {
    const stopped = new EventStream<number, string>(() => {}, 1);
    stopped.push(1);
    const iterator = stopped[Symbol.asyncIterator]();
    const waiting = stopped.demand();
    await iterator.return?.();
    await expect(waiting).resolves.toBeUndefined();
    expect(stopped.demand()).toBeUndefined();

    const resultOnly = new EventStream<number, string>(undefined, 1);
    resultOnly.push(1);
    const pending = resultOnly.demand();
    void resultOnly.result();
    await expect(pending).resolves.toBeUndefined();
    resultOnly.push(2);
    expect(resultOnly.buffered).toBe(0);
  });
});
