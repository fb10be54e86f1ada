import { describe, expect, it } from 'vitest';
import { SettleReplay } from './replay.ts';
import type { Reservation, Settlement } from './types.ts';

const reservation = (id: string, day = '20261126'): Reservation => ({
  key: 'k',
  tokens: 10,
  reserveMicros: 100,
  id,
  day,
  month: day.slice(0, 6),
  tokensPerMinute: 1000,
});

describe('settle replay queue', () => {
  it('replays queued settles in order, keeps what failed for the next run, sums local spend per key and day', async () => {
    const sent: Array<[string, Settlement]> = [];
    let failAfter = 1;
    const queue = new SettleReplay(async (entry, used) => {
      if (failAfter-- <= 0) throw new Error('Connection is closed.');
      sent.push([entry.local === true ? `sum:${entry.day}` : entry.id, used]);
    });
    queue.add(reservation('a'), { tokens: 5, costMicros: 30 });
    queue.add(reservation('b'), { tokens: 5, costMicros: 40 });
    queue.addSpend({ ...reservation('l1'), local: true }, 7);
    queue.addSpend({ ...reservation('l2'), local: true }, 8);
    queue.addSpend({ ...reservation('l3', '20261127'), local: true }, 1);
    expect(queue.size).toBe(4);
    await queue.run(); // 'a' goes, 'b' fails: stays
    expect(sent.map(([id]) => id)).toEqual(['a']);
    expect(queue.size).toBe(3);
    failAfter = Infinity;
    await queue.run();
    expect(sent).toEqual([
      ['a', { tokens: 5, costMicros: 30 }],
      ['b', { tokens: 5, costMicros: 40 }],
      ['sum:20261126', { tokens: 0, costMicros: 15 }],
      ['sum:20261127', { tokens: 0, costMicros: 1 }],
    ]);
    expect(queue).toMatchObject({ size: 0, replayed: 4, folded: 0 });
  });

  it('beyond its limit the oldest settle is folded into the sums: its cost still goes, once', async () => {
    const sent: Array<[Reservation, Settlement]> = [];
    const queue = new SettleReplay(async (entry, used) => void sent.push([entry, used]), 2);
    for (const id of ['a', 'b', 'c']) queue.add(reservation(id), { tokens: 1, costMicros: 10 });
    expect(queue).toMatchObject({ size: 3, folded: 1 });
    await queue.run();
    expect(sent.map(([entry, used]) => [entry.id, entry.local === true, used.costMicros])).toEqual([
      ['b', false, 10],
      ['c', false, 10],
      ['', true, 10],
    ]);
  });

  it('a cost sum whose send timed out (maybe applied) is never sent again; one that surely failed is', async () => {
    let failure: Error | undefined = new Error('Command timed out');
    const sent: number[] = [];
    const queue = new SettleReplay(async (_entry, used) => {
      if (failure !== undefined) throw failure;
      sent.push(used.costMicros);
    });
    queue.addSpend({ ...reservation('l1'), local: true }, 7);
    await queue.run();
    expect(queue).toMatchObject({ size: 0, lost: 7 });
    failure = new Error('Connection is closed.');
    queue.addSpend({ ...reservation('l2'), local: true }, 5);
    await queue.run();
    expect(queue).toMatchObject({ size: 1, lost: 7 });
    failure = undefined;
    await queue.run();
    expect(sent).toEqual([5]);
    expect(queue).toMatchObject({ size: 0, lost: 7, replayed: 1 });
  });

  it('a settle Redis refuses with an error reply is dropped, not retried ahead of the others', async () => {
    const sent: string[] = [];
    const queue = new SettleReplay(async (entry) => {
      if (entry.id === 'bad')
        throw Object.assign(new Error('ERR user_script:1: bad argument'), { name: 'ReplyError' });
      if (entry.id === 'oom')
        throw Object.assign(new Error('OOM command not allowed'), { name: 'ReplyError' });
      sent.push(entry.id);
    });
    queue.add(reservation('bad'), { tokens: 1, costMicros: 1 });
    queue.add(reservation('ok'), { tokens: 1, costMicros: 1 });
    queue.add(reservation('oom'), { tokens: 1, costMicros: 1 });
    await queue.run();
    expect(sent).toEqual(['ok']);
    expect(queue).toMatchObject({ rejected: 1, replayed: 1, size: 1 });
  });
});
