/**
 * Clients that stall. One that stops sending its request body: a 408 in the route's protocol shape
 * after `body_timeout_seconds` without a byte, and the connection closed; a body that keeps coming,
 * however slowly, is served. One that stops reading a stream (HTTP or WebSocket): cut off after
 * `send_timeout_seconds`, and its upstream call cancelled (it would hold a pooled connection).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { type GatewayHarness, rawConnection as rawSocket, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const hello = (text: string) => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text }],
  usage: { input: 3, output: 2 },
});

beforeAll(async () => {
  harness = await startGatewayHarness({ body_timeout_seconds: 0.5, send_timeout_seconds: 0.5 });
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

/** A raw socket to the gateway: what it has received so far, and when it closed. */
const rawConnection = () => rawSocket(harness.server.url);

const chatBody = () => JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] });

describe('the request body timeout', () => {
  it.each([
    ['/v1/chat/completions', /"type":"server_error"/, 'served directly'],
    ['/v1/messages', /"type":"timeout_error"/, 'served directly'],
    ['/v1beta/models/up-gemini:generateContent', /"status":"DEADLINE_EXCEEDED"/, 'served directly'],
    ['/v1/messages/count_tokens', /"type":"timeout_error"/, 'the Hono app’s route'],
  ])(
    'a body that stops arriving (%s) is a 408 in that protocol’s shape after the body timeout, then the connection closes (%s)',
    async (path, shape) => {
      const { socket, received, closed } = rawConnection();
      const started = performance.now();
      // A small declared length Node would otherwise wait for (and drain) to keep the connection.
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`,
      );
      await closed;
      expect(performance.now() - started).toBeGreaterThanOrEqual(450);
      const [head, body] = received().split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 408 /);
      expect(head?.toLowerCase()).toContain('connection: close');
      expect(body).toMatch(shape);
      expect(body).toContain('sent nothing for 0.5 s');
    },
  );

  it('a body sent slowly, each piece within the body timeout, is served (the timeout is per pause, not per body)', async () => {
    // A gateway of its own with a 2 s body timeout: four pieces 700 ms apart, 2.1 s in all, over
    // it, each pause 1.3 s under it. (With the file's 0.5 s, pauses of 150 ms left 350 ms for a
    // late timer: on a loaded machine a pause took longer and the body was refused with a 408.)
    const slow = await startGatewayHarness({ body_timeout_seconds: 2 });
    const { socket, received } = rawSocket(slow.server.url);
    try {
      slow.emulator.enqueue(hello('Slowly.'));
      const body = chatBody();
      const pieces = [0, 10, 20, 30].map((start, index, starts) => body.slice(start, starts[index + 1]));
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      const started = performance.now();
      for (const [index, piece] of pieces.entries()) {
        if (index > 0) await new Promise((resolve) => setTimeout(resolve, 700));
        socket.write(piece);
      }
      expect(performance.now() - started).toBeGreaterThan(2000);
      await vi.waitFor(() => expect(received()).toContain('Slowly.'), { timeout: 10_000 });
      expect(received()).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      socket.destroy();
      await slow.close();
    }
  });
});

describe('the send timeout', () => {
  /**
   * A long reply: far more than the socket buffers usually hold, so a client that reads nothing
   * stalls it; dripped (10 ms between its ~245 events, 2.4 s at least) so that, even where the
   * loopback buffers grow to take it all (`tcp_rmem` here allows 32 MB), the upstream cannot finish
   * it before the 0.5 s send timeout cuts the client off.
   *
   * The buffers here take most of it before the client stalls it, so the cut comes late in the drip:
   * 6.5 s after the request on a busy machine, 49 s with two more runs and two CPU hogs beside it
   * (each drip's timer late). The tests prove the cut and the cancelled upstream call, not a speed:
   * their bound is wide.
   */
  const long = () =>
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'z'.repeat(16_000_000) }],
      chunkSize: 64 * 1024,
      usage: { input: 3, output: 2_000_000 },
      fault: { dripMs: 10 },
    });
  const slow = { timeout: 120_000 };

  it('a stream’s client that stops reading is cut off, and its upstream call cancelled', slow, async () => {
    long();
    const served = harness.nextServed();
    const { socket } = rawConnection();
    const body = JSON.stringify({
      model: 'up-chat',
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const before = harness.accessLog.length;
    socket.pause();
    expect(await served).toMatchObject({ complete: false });
    // This stream's line (not the last line: one an earlier test left may come after it).
    await expect
      .poll(() => harness.accessLog.slice(before).flatMap((line) => (line.stream ? [line.status] : [])), {
        timeout: 5000,
      })
      .toEqual([499]);
    socket.destroy();
  });

  it('a pipelined request queued behind a stream the client then leaves is logged 499 and never sent upstream', async () => {
    // The stream: a slow drip; the second request, pipelined on the same connection, answers at once.
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'drip '.repeat(40) }],
      chunkSize: 5,
      fault: { dripMs: 50 },
    });
    harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Queued.' }] });
    const { socket, received } = rawConnection();
    const request = (stream: boolean) => {
      const body = JSON.stringify({ model: 'up-chat', stream, messages: [{ role: 'user', content: 'Hi' }] });
      return `POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    const before = harness.accessLog.length;
    const sent = harness.emulator.requests.length;
    const servedBefore = harness.served.length;
    socket.write(request(true) + request(false));
    await vi.waitFor(() => expect(received()).toContain('drip'));
    // The stream's upstream call went out; the second waits for its turn behind the stream, and
    // never starts: its client leaves first.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(harness.emulator.requests.length - sent).toBe(1);
    expect(received()).not.toContain('Queued.');
    socket.destroy();
    await expect.poll(() => harness.accessLog.length - before, { timeout: 5000 }).toBe(2);
    // The stream's upstream response ended (cut) before the next test waits on the next one.
    await expect.poll(() => harness.served.length - servedBefore, { timeout: 5000 }).toBe(1);
    expect(harness.emulator.requests.length - sent).toBe(1);
    expect(received()).not.toContain('Queued.');
    expect(harness.accessLog.slice(before).map((line) => [line.stream, line.status])).toEqual(
      expect.arrayContaining([
        [true, 499],
        [false, 499],
      ]),
    );
  });

  it('pipelined requests are generated one at a time, in order, each once the one before it is answered', async () => {
    for (const text of ['one', 'two', 'three'])
      harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text }] });
    const sent = harness.emulator.requests.length;
    const { socket, received } = rawConnection();
    const body = JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] });
    const request = `POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    socket.write(request.repeat(3));
    await expect.poll(() => received().match(/HTTP\/1\.1 200/g)?.length ?? 0).toBe(3);
    const text = received();
    expect(text.indexOf('one')).toBeLessThan(text.indexOf('two'));
    expect(text.indexOf('two')).toBeLessThan(text.indexOf('three'));
    expect(harness.emulator.requests.length - sent).toBe(3);
    socket.destroy();
  });

  it.each([
    ['one request, then bytes that are no request', 1, '', 'GARBAGE / HTTP/1.1\r\n\r\n'],
    ['two requests, then bytes that are no request', 2, '', 'GARBAGE / HTTP/1.1\r\n\r\n'],
    ['a request with Connection: close, then stray bytes', 1, 'connection: close\r\n', 'XYZ'],
    ['a stream, then bytes that are no request', 1, '', 'GARBAGE / HTTP/1.1\r\n\r\n', true],
  ])(
    '%s: each request is answered whole (no 400 in its place, no 499), then the connection closes',
    async (_, count, extraHeader, trailing, stream = false) => {
      for (let index = 0; index < count; index++)
        harness.emulator.enqueue({
          type: 'scripted',
          content: [{ type: 'text', text: `answer ${index} ${'drip '.repeat(stream ? 10 : 0)}` }],
          chunkSize: 5,
          fault: stream ? { dripMs: 20 } : { delayHeadersMs: 100 },
        });
      const before = harness.accessLog.length;
      const body = JSON.stringify({ model: 'up-chat', stream, messages: [{ role: 'user', content: 'Hi' }] });
      const request = `POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n${extraHeader}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      const { socket, received, closed } = rawConnection();
      socket.write(request.repeat(count) + trailing);
      await closed;
      expect(received().match(/HTTP\/1\.1 \d+/g)).toEqual(Array(count).fill('HTTP/1.1 200'));
      // A stream's text comes in pieces: its end is what shows it was not cut.
      if (stream) expect(received()).toContain('[DONE]');
      else for (let index = 0; index < count; index++) expect(received()).toContain(`answer ${index}`);
      await expect.poll(() => harness.accessLog.length - before).toBe(count);
      expect(harness.accessLog.slice(before).map((line) => line.status)).toEqual(Array(count).fill(200));
    },
  );

  it('a WebSocket client that stops reading is cut off, and its upstream call cancelled', slow, async () => {
    long();
    const served = harness.nextServed();
    const socket = new WebSocket(`${harness.server.url.replace('http', 'ws')}/switchyard/v1/ws`);
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    (socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const transcript = [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }];
    socket.send(JSON.stringify({ type: 'request', id: 'a', request: { model: 'up-chat', transcript } }));
    expect(await served).toMatchObject({ complete: false });
    (socket as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await closed).toBe(1006);
  });

  it(
    'a Responses WebSocket client that stops reading is cut off, and its upstream call cancelled (logged 499)',
    slow,
    async () => {
      long();
      const served = harness.nextServed();
      const socket = new WebSocket(`${harness.server.url.replace('http', 'ws')}/v1/responses`);
      const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      (socket as unknown as { _socket: { pause(): void } })._socket.pause();
      socket.send(JSON.stringify({ type: 'response.create', model: 'up-chat', input: 'Hi' }));
      expect(await served).toMatchObject({ complete: false });
      (socket as unknown as { _socket: { resume(): void } })._socket.resume();
      expect(await closed).toBe(1006);
      await expect
        .poll(() => harness.accessLog.at(-1), { timeout: 5000 })
        .toMatchObject({ protocol: 'openai-responses', status: 499 });
    },
  );
});

describe('request bytes in flight', () => {
  const post = (limited: GatewayHarness, body: BodyInit, path = '/v1/chat/completions') =>
    fetch(`${limited.server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
  const chatText = (text: string) =>
    JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: text }] });
  /** The gateway's Chat Completions requests in flight, from its metrics. */
  const chatInFlight = async (limited: GatewayHarness) => {
    const metrics = await (await fetch(`${limited.server.url}/metrics`)).text();
    return Number(/in_flight_requests\{protocol="openai-chat"\} (\d+)/.exec(metrics)?.[1]);
  };

  it('a body is held as its bytes arrive, not by its declared length: a client declaring a large body and sending a byte does not hold the bound', async () => {
    const limited = await startGatewayHarness({ max_request_bytes_in_flight: 200_000 });
    const drip = rawSocket(limited.server.url);
    try {
      // Declares 150,000 bytes and sends one (a slow drip would send the rest a byte a second).
      drip.socket.write(
        'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
          'content-length: 150000\r\n\r\n{',
      );
      // Its body is being read: the gateway counts it in flight.
      await expect.poll(() => chatInFlight(limited)).toBe(1);
      limited.emulator.enqueue(hello('Served.'));
      const other = await post(limited, chatText('y'.repeat(100_000)));
      expect(other.status).toBe(200);
      expect(drip.received()).toBe('');
    } finally {
      drip.socket.destroy();
      await limited.close();
    }
  });
  it('a body without a declared length is a 503 once its bytes pass the bound, and what it held is given back', async () => {
    const limited = await startGatewayHarness({ max_request_bytes_in_flight: 200_000 });
    try {
      // The first large request is held upstream (its headers come after 1.5 s).
      limited.emulator.enqueue({ ...hello('First.'), fault: { delayHeadersMs: 1500 } });
      const first = post(limited, chatText('x'.repeat(150_000)));
      await expect.poll(() => limited.emulator.requests.length).toBe(1);
      const chunked = await post(limited, new Blob([chatText('y'.repeat(100_000))]).stream());
      expect(chunked.status).toBe(503);
      expect(await chunked.text()).toMatch(/large request bodies/);
      expect((await first).status).toBe(200);
      // Nothing is held any more: a body that alone nearly fills the bound passes.
      limited.emulator.enqueue(hello('Now.'));
      expect((await post(limited, chatText('z'.repeat(190_000)))).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
  it('past max_request_bytes_in_flight a large body is a 503 with retry-after; small ones pass; the bound frees as requests end', async () => {
    const limited = await startGatewayHarness({ max_request_bytes_in_flight: 200_000 });
    try {
      const post = (text: string) =>
        fetch(`${limited.server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: text }] }),
        });
      // The first large request is held upstream (its headers come after 1.5 s).
      limited.emulator.enqueue({ ...hello('First.'), fault: { delayHeadersMs: 1500 } });
      const first = post('x'.repeat(150_000));
      await expect.poll(() => limited.emulator.requests.length).toBe(1);
      const refused = await post('y'.repeat(100_000));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.text()).toMatch(/large request bodies/);
      limited.emulator.enqueue(hello('Small.'));
      expect((await post('small')).status).toBe(200);
      expect((await first).status).toBe(200);
      limited.emulator.enqueue(hello('Now.'));
      expect((await post('y'.repeat(100_000))).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
  it('a WebSocket request counts against the bound as an HTTP body does: past it, an error frame with the 503', async () => {
    const limited = await startGatewayHarness({ max_request_bytes_in_flight: 200_000 });
    const socket = new WebSocket(`${limited.server.url.replace('http', 'ws')}/switchyard/v1/ws`);
    try {
      const frames: Array<{ id: string | null; type: string; error?: { status: number; message: string } }> =
        [];
      socket.on('message', (data) => frames.push(JSON.parse(String(data)) as (typeof frames)[number]));
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      const send = (id: string, text: string) =>
        socket.send(
          JSON.stringify({
            type: 'request',
            id,
            request: { model: 'up-chat', transcript: [{ kind: 'user', parts: [{ type: 'text', text }] }] },
          }),
        );
      // The first large request is held upstream (its headers come after 1.5 s).
      limited.emulator.enqueue({ ...hello('First.'), fault: { delayHeadersMs: 1500 } });
      send('first', 'x'.repeat(150_000));
      await expect.poll(() => limited.emulator.requests.length).toBe(1);
      send('second', 'y'.repeat(100_000));
      await expect
        .poll(() => frames.find((frame) => frame.id === 'second' && frame.type === 'error'))
        .toBeDefined();
      const refused = frames.find((frame) => frame.id === 'second' && frame.type === 'error')!;
      expect(refused.error?.status).toBe(503);
      expect(refused.error?.message).toMatch(/large request bodies/);
      // The held one is served; then the bound is free again.
      await expect
        .poll(() => frames.some((frame) => frame.id === 'first' && frame.type === 'done'), {
          timeout: 5000,
        })
        .toBe(true);
      limited.emulator.enqueue(hello('Now.'));
      send('third', 'y'.repeat(100_000));
      await expect
        .poll(() => frames.some((frame) => frame.id === 'third' && frame.type === 'done'), {
          timeout: 5000,
        })
        .toBe(true);
    } finally {
      socket.close();
      await limited.close();
    }
  });
});

describe('bodies a parse would pay for', () => {
  it('a WebSocket message opening more objects and arrays than the shape check takes is refused before its parse', async () => {
    const socket = new WebSocket(`${harness.server.url.replace('http', 'ws')}/switchyard/v1/ws`);
    const frames: Array<{ id: string | null; type: string; error?: { status: number; message: string } }> =
      [];
    const refused = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        frames.push(JSON.parse(String(data)) as (typeof frames)[number]);
        if (frames.at(-1)?.type === 'error') resolve();
      }),
    );
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const padding = `[${'{},'.repeat(2_000_000)}[]]`;
    socket.send(
      `{"type":"request","id":"many","request":{"model":"up-chat","transcript":[],"x":${padding}}}`,
    );
    await refused;
    expect(frames.at(-1)?.error).toMatchObject({
      status: 400,
      // Refused by the pre-check (its own words), not by the shape check after a parse.
      message: expect.stringMatching(/the message holds more than 2000000 nested values/),
    });
    socket.close();
  });
});

describe('a client that half-closes its side after its request', () => {
  it('is taken as gone (Node’s httpAllowHalfOpen: false): no reply, nothing left running upstream, logged 499 — a close and a half-close look alike until a write', async () => {
    // The upstream answers after 3 s: closed before that, the connection did not wait for it. (With
    // 400 ms and a 300 ms bound, a loaded machine took 380–425 ms to close.)
    harness.emulator.enqueue({ ...hello('Never read.'), fault: { delayHeadersMs: 3000 } });
    const before = harness.accessLog.length;
    const servedBefore = harness.served.length;
    const { socket, received, closed } = rawConnection();
    const body = chatBody();
    const started = performance.now();
    socket.end(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await closed;
    expect(performance.now() - started).toBeLessThan(3000);
    expect(received()).toBe('');
    await expect.poll(() => harness.accessLog.length - before).toBe(1);
    expect(harness.accessLog.at(-1)).toMatchObject({ status: 499, errorClass: 'cancelled' });
    // Cancelled before the upstream answered: any call sent was cut, not served whole (past the
    // time it would have been).
    await new Promise((resolve) => setTimeout(resolve, 3500 - (performance.now() - started)));
    expect(harness.served.slice(servedBefore).filter((entry) => entry.complete)).toEqual([]);
  });
});
