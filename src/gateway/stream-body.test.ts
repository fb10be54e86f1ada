import { describe, expect, it } from 'vitest';
import type { StreamEncoder, WireFrame } from '../codecs/types.ts';
import type { StreamEvent } from '../core/events.ts';
import { createBodyPump, createFramer, webBody, type BodyParts } from './stream-body.ts';

const delta = (text: string): StreamEvent => ({ type: 'text-delta', index: 0, delta: text });

/** An upstream whose events are pushed by the test; `next()` waits when none is queued. */
function upstream() {
  const queue: Array<IteratorResult<StreamEvent> | Error> = [];
  let waiting: ((value: IteratorResult<StreamEvent> | Error) => void) | undefined;
  const push = (item: IteratorResult<StreamEvent> | Error) => {
    if (waiting === undefined) queue.push(item);
    else {
      const wake = waiting;
      waiting = undefined;
      wake(item);
    }
  };
  const iterator: AsyncIterator<StreamEvent> = {
    async next() {
      const item =
        queue.shift() ??
        (await new Promise<IteratorResult<StreamEvent> | Error>((resolve) => (waiting = resolve)));
      if (item instanceof Error) throw item;
      return item;
    },
    async return() {
      return { done: true, value: undefined };
    },
  };
  return {
    iterator,
    event: (event: StreamEvent) => push({ done: false, value: event }),
    end: () => push({ done: true, value: undefined }),
    fail: (error: Error) => push(error),
  };
}

const encoder: StreamEncoder = {
  event: (event) => (event.type === 'text-delta' ? [{ data: event.delta }] : []),
  error: (error) => [{ event: 'error', data: error.message }],
  started: true,
};

function pumpOver(source: ReturnType<typeof upstream>, first: WireFrame[] = [{ data: 'first' }]) {
  const calls = { finish: 0, cancel: 0, errors: [] as string[] };
  const controller = new AbortController();
  const parts: BodyParts = {
    iterator: source.iterator,
    onEvent: (event) => encoder.event(event),
    framer: createFramer(false),
    streamEncoder: encoder,
    controller,
    finish: () => calls.finish++,
    onCancel: () => calls.cancel++,
    onError: (errorClass) => calls.errors.push(errorClass),
    first,
    done: false,
  };
  return { pump: createBodyPump(parts), calls, controller };
}

describe('the streamed body', () => {
  it('events the upstream has already delivered leave in one read', async () => {
    const source = upstream();
    const { pump, calls } = pumpOver(source);
    for (const word of ['a', 'b', 'c']) source.event(delta(word));
    source.end();
    expect(await pump.read()).toBe('data: first\n\ndata: a\n\ndata: b\n\ndata: c\n\n');
    expect(pump.ended).toBe(true);
    expect(await pump.read()).toBeUndefined();
    expect(calls.finish).toBe(1);
  });

  it('a read holds at most about 64 KiB: a long burst leaves in several reads, nothing lost', async () => {
    const source = upstream();
    const { pump } = pumpOver(source);
    const word = 'x'.repeat(1000);
    for (let index = 0; index < 200; index++) source.event(delta(word));
    source.end();
    const reads: string[] = [];
    for (let text = await pump.read(); text !== undefined; text = await pump.read()) reads.push(text);
    expect(reads.length).toBeGreaterThan(2);
    for (const text of reads) expect(text.length).toBeLessThan(64 * 1024 + 1100);
    expect(reads.join('')).toBe(`data: first\n\n${`data: ${word}\n\n`.repeat(200)}`);
  });

  it('does not wait for an event that is not ready: what is there goes now, the rest with the next read', async () => {
    const source = upstream();
    const { pump } = pumpOver(source);
    source.event(delta('a'));
    expect(await pump.read()).toBe('data: first\n\ndata: a\n\n');
    expect(pump.ended).toBe(false);
    setTimeout(() => {
      source.event(delta('late'));
      source.end();
    }, 5);
    expect(await pump.read()).toBe('data: late\n\n');
    expect(await pump.read()).toBeUndefined();
  });

  it('a failure after content is the in-band error, after the content already read', async () => {
    const source = upstream();
    const { pump, calls } = pumpOver(source);
    source.event(delta('a'));
    source.fail(Object.assign(new Error('upstream cut'), { name: 'NetworkError' }));
    const text = await pump.read();
    expect(text).toMatch(/^data: first\n\ndata: a\n\nevent: error\ndata: /);
    expect(calls.errors).toHaveLength(1);
    expect(calls.finish).toBe(1);
    expect(await pump.read()).toBeUndefined();
  });

  it('cancel aborts the upstream call once and ends the body', async () => {
    const source = upstream();
    const { pump, calls, controller } = pumpOver(source);
    await pump.read();
    await pump.cancel();
    await pump.cancel();
    expect(controller.signal.aborted).toBe(true);
    expect(calls).toMatchObject({ cancel: 1, finish: 1 });
  });

  it('a read running when the client leaves stops there: nothing more is encoded or reported', async () => {
    const source = upstream();
    const { pump, calls } = pumpOver(source);
    await pump.read();
    const reading = pump.read();
    await pump.cancel();
    source.fail(new Error('aborted by the cancel'));
    expect(await reading).toBeUndefined();
    expect(calls).toMatchObject({ cancel: 1, finish: 1, errors: [] });
  });

  it('an abort that is not the client leaving (a shutdown) still ends with the in-band error', async () => {
    const source = upstream();
    const { pump, controller } = pumpOver(source);
    await pump.read();
    controller.abort(new Error('gateway shutting down'));
    source.fail(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    expect(await pump.read()).toMatch(/^event: error\ndata: /);
  });

  it('as a web stream, reads that bring no text do not stall it', async () => {
    const source = upstream();
    const { pump } = pumpOver(source, []);
    const body = webBody(pump, '');
    setTimeout(() => {
      source.event({ type: 'text-start', index: 0 });
      setTimeout(() => {
        source.event(delta('x'));
        source.end();
      }, 5);
    }, 5);
    expect(await new Response(body).text()).toBe('data: x\n\n');
  });
});
