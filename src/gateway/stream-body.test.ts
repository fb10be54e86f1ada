import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { StreamEncoder, WireFrame } from '../codecs/types.ts';
import type { StreamEvent } from '../core/events.ts';
import { createBodyPump, createFramer, webBody, writeToNode, type BodyParts } from './stream-body.ts';

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

/** Node's response as far as `writeToNode` uses it; `full` makes `write` report a full socket. */
class FakeResponse extends EventEmitter {
  writes: string[] = [];
  head: [number, Record<string, string>] | undefined;
  ended = false;
  destroyed = false;
  writableFinished = false;
  writableNeedDrain = false;
  full = false;
  writeHead(status: number, headers: Record<string, string>) {
    this.head = [status, headers];
    return this;
  }
  write(text: string) {
    this.writes.push(text);
    this.writableNeedDrain = this.full;
    return !this.full;
  }
  end() {
    this.ended = true;
    this.writableFinished = true;
    this.emit('close');
  }
  drain() {
    this.full = false;
    this.writableNeedDrain = false;
    this.emit('drain');
  }
  leave() {
    this.destroyed = true;
    this.emit('close');
  }
}

const settle = async () => {
  for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the streamed body written to Node’s response', () => {
  it('the headers leave with the first text; each later read is written as it comes, then the end', async () => {
    const source = upstream();
    const { pump, calls } = pumpOver(source);
    const outgoing = new FakeResponse();
    writeToNode(pump, (await pump.read())!, outgoing as unknown as ServerResponse, {
      'content-type': 'text/event-stream',
    });
    expect(outgoing.head).toEqual([200, { 'content-type': 'text/event-stream' }]);
    expect(outgoing.writes).toEqual(['data: first\n\n']);
    source.event(delta('a'));
    await settle();
    expect(outgoing.writes.at(-1)).toBe('data: a\n\n');
    source.end();
    await settle();
    expect(outgoing.ended).toBe(true);
    expect(calls).toMatchObject({ finish: 1, cancel: 0 });
  });

  it('a full socket stops the reads until it drains: a slow client pauses the upstream', async () => {
    const source = upstream();
    const { pump } = pumpOver(source);
    const outgoing = new FakeResponse();
    outgoing.full = true;
    const head = (await pump.read())!;
    let pulled = 0;
    const read = pump.read.bind(pump);
    pump.read = () => {
      pulled++;
      return read();
    };
    writeToNode(pump, head, outgoing as unknown as ServerResponse, {});
    for (const word of ['a', 'b', 'c']) source.event(delta(word));
    await settle();
    await settle();
    // Nothing read while the client's socket is full: the events wait upstream.
    expect(pulled).toBe(0);
    expect(outgoing.writes).toEqual(['data: first\n\n']);
    outgoing.drain();
    await settle();
    expect(pulled).toBeGreaterThan(0);
    expect(outgoing.writes.join('')).toContain('data: c\n\n');
  });

  it('a client already gone when the write starts: the pump is cancelled once, nothing is written', async () => {
    const source = upstream();
    const { pump, calls, controller } = pumpOver(source);
    const head = (await pump.read())!;
    const outgoing = new FakeResponse();
    outgoing.destroyed = true;
    writeToNode(pump, head, outgoing as unknown as ServerResponse, {});
    await settle();
    expect(controller.signal.aborted).toBe(true);
    expect(calls).toMatchObject({ cancel: 1, finish: 1 });
    expect(outgoing.head).toBeUndefined();
    expect(outgoing.writes).toEqual([]);
  });

  it('a client that leaves mid-stream cancels the pump once and nothing more is written', async () => {
    const source = upstream();
    const { pump, calls, controller } = pumpOver(source);
    const outgoing = new FakeResponse();
    writeToNode(pump, (await pump.read())!, outgoing as unknown as ServerResponse, {});
    await settle();
    outgoing.leave();
    source.event(delta('late'));
    await settle();
    expect(controller.signal.aborted).toBe(true);
    expect(calls).toMatchObject({ cancel: 1, finish: 1 });
    expect(outgoing.writes).toEqual(['data: first\n\n']);
    expect(outgoing.ended).toBe(false);
  });
});

describe('the first bytes of a burst', () => {
  it('leave the socket before the rest of a burst the upstream already delivered is translated', async () => {
    const { createServer } = await import('node:http');
    const order: string[] = [];
    // A routed stream with a burst of events ready at once (the front door's pollable iterator).
    const ready = ['b', 'c', 'd'].map((word) => delta(word));
    const iterator = {
      poll: () => {
        const event = ready.shift();
        if (event !== undefined) order.push(`translate ${event.type === 'text-delta' ? event.delta : ''}`);
        return event === undefined ? undefined : { done: false as const, value: event };
      },
      next: async (): Promise<IteratorResult<StreamEvent>> => ({ done: true, value: undefined }),
      return: async (): Promise<IteratorResult<StreamEvent>> => ({ done: true, value: undefined }),
    };
    const server = createServer((_incoming, outgoing) => {
      const socket = outgoing.socket!;
      const writev = socket._writev?.bind(socket);
      const write = socket._write.bind(socket);
      socket._writev = (chunks, callback) => {
        order.push('socket');
        writev!(chunks, callback);
      };
      socket._write = (chunk, encoding, callback) => {
        order.push('socket');
        write(chunk, encoding, callback);
      };
      const pump = createBodyPump({
        iterator,
        onEvent: (event) => encoder.event(event),
        framer: createFramer(false),
        streamEncoder: encoder,
        controller: new AbortController(),
        finish: () => {},
        onCancel: () => {},
        onError: () => {},
        first: [{ data: 'a' }],
        done: false,
      });
      writeToNode(pump, pump.takeFirst(), outgoing, { 'content-type': 'text/event-stream' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    server.close();
    expect(body).toBe('data: a\n\ndata: b\n\ndata: c\n\ndata: d\n\n');
    expect(order.indexOf('socket')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('socket')).toBeLessThan(order.indexOf('translate b'));
  });
});

describe('the send timeout', () => {
  it('a client still reading one large write slowly is not cut off: the timeout is for taking nothing', async () => {
    const { createServer } = await import('node:http');
    const { connect } = await import('node:net');
    let cancelled = false;
    const texts = ['x'.repeat(12 * 1024 * 1024), 'tail\n'];
    const pump = { read: async () => texts.shift(), cancel: async () => void (cancelled = true) };
    const server = createServer((incoming, outgoing) => {
      incoming.resume();
      writeToNode(pump as never, 'head\n', outgoing, { 'content-type': 'text/plain' }, 1000);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    // Only the last bytes are kept: appending to and searching a 12 MiB string on every read made
    // the client itself slow enough, on a loaded machine, to take nothing for a second.
    let received = '';
    // A socket read every 25 ms: the 12 MiB write takes the client seconds, never a second idle.
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received = (received + chunk).slice(-64);
      if (received.endsWith('tail\n\r\n0\r\n\r\n')) socket.end();
      socket.pause();
      setTimeout(() => socket.resume(), 25);
    });
    await new Promise((resolve) => socket.on('close', resolve));
    server.close();
    expect(received.endsWith('tail\n\r\n0\r\n\r\n')).toBe(true);
    expect(cancelled).toBe(false);
  }, 30_000);
});
