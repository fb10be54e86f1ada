import { LimitExceededError } from '../core/limit-exceeded.ts';
/** The default transport's request (`dispatchRequest`) against a loopback server: fetch-like results, bounded reading. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatchRequest, maxUnreadDecodedBytes, socketOptions } from './dispatch.ts';

let server: Server | undefined;
let agent: Agent | undefined;

afterEach(async () => {
  await agent?.destroy();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
  agent = undefined;
});

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  agent = new Agent({ connect: socketOptions });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function send(url: string, init: Partial<Parameters<typeof dispatchRequest>[2]> = {}) {
  return dispatchRequest(agent!, url, {
    method: 'POST',
    headers: {},
    body: '{}',
    signal: new AbortController().signal,
    onSent: () => {},
    ...init,
  });
}

describe('dispatchRequest', () => {
  it('returns status, headers (repeated ones kept) and the body, and sends the request body', async () => {
    let received = '';
    const url = await serve((request, response) => {
      request.on('data', (chunk: Buffer) => (received += chunk.toString()));
      request.on('end', () => {
        response.writeHead(201, 'Made', [
          ['content-type', 'application/json'],
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
        ]);
        response.end('{"ok":true}');
      });
    });
    let sent = 0;
    const response = await send(`${url}/v1/x?y=1`, { body: '{"q":1}', onSent: () => sent++ });
    expect([response.status, response.statusText, response.ok]).toEqual([201, 'Made', true]);
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ ok: true });
    expect(received).toBe('{"q":1}');
    expect(sent).toBe(1);
  });

  it('asks for gzip, deflate, br and decodes gzip and br bodies; a caller-set accept-encoding is kept', async () => {
    const seen: Array<string | undefined> = [];
    const url = await serve((request, response) => {
      seen.push(request.headers['accept-encoding']);
      const text = 'data: {"x":"é日本🚀"}\n\n'.repeat(500);
      const coding = request.url === '/br' ? 'br' : 'gzip';
      response.writeHead(200, { 'content-encoding': coding, 'content-type': 'text/event-stream' });
      response.end(coding === 'br' ? brotliCompressSync(text) : gzipSync(text));
    });
    const gzip = await (await send(`${url}/gzip`)).text();
    const br = await (await send(`${url}/br`, { headers: { 'Accept-Encoding': 'br' } })).text();
    expect(gzip).toBe('data: {"x":"é日本🚀"}\n\n'.repeat(500));
    expect(br).toBe(gzip);
    expect(seen).toEqual(['gzip, deflate, br', 'br']);
  });

  it('gives 204 a null body and skips an interim 103', async () => {
    const url = await serve((request, response) => {
      if (request.url === '/hints') {
        response.writeEarlyHints({ link: '</a.css>; rel=preload' });
        response.end('final');
        return;
      }
      response.writeHead(204).end();
    });
    const empty = await send(`${url}/none`);
    expect([empty.status, empty.body]).toEqual([204, null]);
    const hinted = await send(`${url}/hints`);
    expect([hinted.status, await hinted.text()]).toEqual([200, 'final']);
  });

  it('rejects with the abort reason before the headers, and errors the body after them', async () => {
    let respond: (() => void) | undefined;
    const url = await serve((request, response) => {
      if (request.url === '/slow-headers') {
        respond = () => response.end('late');
        return;
      }
      response.writeHead(200);
      response.write('first');
    });
    const early = new AbortController();
    const pending = send(`${url}/slow-headers`, { signal: early.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    early.abort(new Error('stop early'));
    await expect(pending).rejects.toThrow('stop early');
    respond?.();

    const late = new AbortController();
    const response = await send(`${url}/body`, { signal: late.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first');
    late.abort(new Error('stop late'));
    await expect(reader.read()).rejects.toThrow('stop late');
  });

  it('holds at most 16 KiB plus one socket read per connection: 20 stalled bodies stop their server writes (TCP backpressure)', async () => {
    const connections = 20;
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const blocked: Array<Promise<void>> = [];
    let written = 0;
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      blocked.push(
        new Promise((resolve) => {
          const pump = () => {
            // At most 16 MiB per response: far above what the kernel and one unread chunk hold.
            for (let sent = 0; sent < 16 * 1024 * 1024; sent += chunk.length) {
              written += chunk.length;
              if (!response.write(chunk)) return void resolve();
            }
            response.end();
            resolve();
          };
          pump();
        }),
      );
    });
    agent = new Agent({ connect: socketOptions, connections });
    const before = process.memoryUsage().arrayBuffers;
    const responses = await Promise.all(Array.from({ length: connections }, () => send(url)));
    // Each consumer reads once (the body is being pulled), then stalls.
    const readers = responses.map((response) => response.body!.getReader());
    let total = 0;
    for (const reader of readers) total += (await reader.read()).value?.length ?? 0;
    await Promise.all(blocked);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const held = process.memoryUsage().arrayBuffers - before;
    // 16 KiB joined for the next read plus one socket read (at most 64 KiB); undici's fetch with its
    // default socket held ~195 KiB per body here.
    expect(held).toBeLessThan(connections * 88 * 1024);
    expect(written).toBeLessThan(connections * 16 * 1024 * 1024);
    expect(total).toBeGreaterThan(0);
    for (const reader of readers) await reader.cancel();
  });

  it('closes the connection when the body is cancelled', async () => {
    let closed: Promise<void> | undefined;
    const url = await serve((request, response) => {
      closed = new Promise((resolve) => request.socket.on('close', () => resolve()));
      response.writeHead(200);
      response.write('partial');
    });
    const response = await send(url);
    await response.body!.cancel();
    await closed;
  });

  it('a gzip bomb waiting for a stalled consumer fails the body with LimitExceededError instead of growing', async () => {
    // 32 MB of zeros is ~32 KB gzipped: one or two socket reads, which zlib would inflate whole.
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024));
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/event-stream' });
      response.end(bomb);
    });
    const limit = 1024 * 1024;
    const response = await send(url, { maxUnreadBytes: limit });
    const before = process.memoryUsage().arrayBuffers;
    // The consumer reads nothing for a while, then finds the body failed, not 32 MB waiting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
    const error = await response
      .body!.getReader()
      .read()
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(LimitExceededError);
    expect((error as LimitExceededError).limit).toBe(limit);
    expect(maxUnreadDecodedBytes).toBe(64 * 1024 * 1024);
  });

  it('a gzip bomb read by a live consumer decodes in full (the limit is on unread bytes only)', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' });
      response.end(gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x61)));
    });
    const text = await (await send(url, { maxUnreadBytes: 4 * 1024 * 1024 })).text();
    expect(text.length).toBe(8 * 1024 * 1024);
  });
});
