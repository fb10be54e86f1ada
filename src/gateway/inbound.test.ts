import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { GatewayError } from './errors.ts';
import { readJson } from './inbound.ts';
import { maxVisitedValues } from '../core/value-shape.ts';

const request = (body: string, headers: Record<string, string> = {}) =>
  new Request('http://gateway.test/v1/chat/completions', { method: 'POST', body, headers });

describe('readJson', () => {
  it('a large body opening more objects and arrays than the shape check takes is refused before its parse', async () => {
    const many = `[${'{},'.repeat(maxVisitedValues)}[]]`;
    await expect(readJson(request(many), 32 * 1024 * 1024)).rejects.toMatchObject({
      field: 'body',
      message: `body: more than ${maxVisitedValues} nested values`,
    });
  });

  it('reads a body within the limit', async () => {
    await expect(readJson(request('{"a":1}', { 'content-length': '7' }), 64)).resolves.toEqual({ a: 1 });
    await expect(readJson(request('{"a":1}'), 64)).resolves.toEqual({ a: 1 });
  });

  it('a declared length above the limit is a 413 before the body is read', async () => {
    await expect(readJson(request('{}', { 'content-length': '65' }), 64)).rejects.toMatchObject({
      wire: { status: 413 },
    });
  });

  it('a body larger than its declared length is still held to the limit (multi-byte text counted in bytes)', async () => {
    const body = JSON.stringify({ text: 'é'.repeat(40) });
    await expect(readJson(request(body, { 'content-length': '10' }), 64)).rejects.toMatchObject({
      wire: { status: 413 },
    });
  });

  it('a UTF-8 byte-order mark is dropped, and multi-byte text is decoded, with or without a declared length', async () => {
    const body = '\ufeff{"text":"héllo → 世界"}';
    const length = String(Buffer.byteLength(body));
    await expect(readJson(request(body, { 'content-length': length }), 64)).resolves.toEqual({
      text: 'héllo → 世界',
    });
    await expect(readJson(request(body), 64)).resolves.toEqual({ text: 'héllo → 世界' });
  });

  it('a body that is not valid UTF-8 is a 400 naming it, never passed on with U+FFFD in place of its bytes', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"text":"a'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"}'),
    ]);
    const invalid = new Request('http://gateway.test/v1/chat/completions', { method: 'POST', body: bytes });
    await expect(readJson(invalid, 64)).rejects.toMatchObject({
      wire: { status: 400, message: 'the request body is not valid UTF-8' },
    });
    // A U+FFFD the client wrote itself is text like any other.
    await expect(readJson(request('{"text":"a\ufffdb"}'), 64)).resolves.toEqual({ text: 'a\ufffdb' });
  });

  it('malformed JSON is a 400', async () => {
    await expect(readJson(request('{"a":', { 'content-length': '5' }), 64)).rejects.toMatchObject({
      wire: { status: 400 },
    });
  });
});

describe('readJson from Node’s request (the gateway’s own server)', () => {
  /** A server answering each request with readJson's result (or its error's status / message). */
  const serve = async () => {
    const outcomes: unknown[] = [];
    const server = createServer((incoming, outgoing) => {
      const unused = new Request('http://gateway.test/unused');
      readJson(unused, 64, incoming).then(
        (value) => {
          outcomes.push(value);
          outgoing.end(JSON.stringify(value));
        },
        (error: unknown) => {
          outcomes.push(error);
          outgoing.statusCode = error instanceof GatewayError ? error.wire.status : 500;
          outgoing.end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { port, outcomes, close: () => new Promise((resolve) => server.close(resolve)) };
  };

  it('reads a body with or without a declared length; a byte-order mark is dropped', async () => {
    const { port, close } = await serve();
    const body = '\ufeff{"text":"héllo → 世界"}';
    const declared = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body });
    expect(await declared.json()).toEqual({ text: 'héllo → 世界' });
    const chunked = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body: new Blob([body]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(await chunked.json()).toEqual({ text: 'héllo → 世界' });
    await close();
  });

  it('once the body is read, nothing of the read stays on the request (its chunks would live as long as the call)', async () => {
    const listeners: number[] = [];
    const server = createServer((incoming, outgoing) => {
      void readJson(undefined, 1024, incoming).then(() => {
        listeners.push(incoming.listenerCount('data'));
        outgoing.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{"a":1}' })).text();
    await new Promise((resolve) => server.close(resolve));
    expect(listeners).toEqual([0]);
  });

  it('a chunked body above the limit is a 413; a declared length above it is refused unread', async () => {
    const { port, close } = await serve();
    const big = JSON.stringify({ text: 'x'.repeat(200) });
    const chunked = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: big })).status).toBe(413);
    await close();
  });

  it('a read that starts after the client already left rejects at once (no hang)', async () => {
    const outcomes: unknown[] = [];
    const server = createServer((incoming) => {
      incoming.socket.destroy();
      setTimeout(() => {
        readJson(new Request('http://gateway.test/unused'), 64, incoming).then(
          (value) => outcomes.push(value),
          (error: unknown) => outcomes.push(error),
        );
      }, 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 7\r\n\r\n{"a":1}');
    await vi.waitFor(() => expect(outcomes).toHaveLength(1));
    expect(outcomes[0]).toBeInstanceOf(Error);
    await new Promise((resolve) => server.close(resolve));
  });

  it('the body’s size so far is told to the counter as its bytes arrive, whatever length it declares; a counter that refuses fails the read with its error', async () => {
    const sizes: number[] = [];
    const outcomes: unknown[] = [];
    const refusal = new GatewayError({ status: 503, errorClass: 'server_error', message: 'full' });
    const server = createServer((incoming, outgoing) => {
      const counter = {
        take(size: number) {
          sizes.push(size);
          if (size > 3) throw refusal;
        },
      };
      readJson(undefined, 1024, incoming, { idleMs: 60_000, deadlineMs: 300_000 }, counter).then(
        (value) => outcomes.push(value),
        (error: unknown) => {
          outcomes.push(error);
          outgoing.end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => {});
    // 900 bytes declared, 2 sent: 2 are told (the declared length is nobody's to hold).
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 900\r\n\r\n{"');
    await vi.waitFor(() => expect(sizes).toEqual([2]));
    socket.write('a":');
    await vi.waitFor(() => expect(outcomes).toEqual([refusal]));
    expect(sizes).toEqual([2, 5]);
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a client that leaves before its body ends rejects the read (no hang)', async () => {
    const { port, outcomes, close } = await serve();
    const socket = connect(port, '127.0.0.1');
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 40\r\n\r\n{"a":');
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    await vi.waitFor(() => expect(outcomes).toHaveLength(1));
    expect(outcomes[0]).toBeInstanceOf(Error);
    await close();
  });
});
