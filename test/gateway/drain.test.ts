/**
 * Shutdown as a load balancer expects it: while requests are in flight the listener keeps
 * accepting, `/readyz` answers 503 and a new request is refused 503 with `retry-after` and
 * `connection: close` in its protocol's shape (a WebSocket upgrade too), a reply that began before
 * the drain closes its connection when it ends, and a request pipelined behind it before the drain
 * is refused as a new one when its turn comes; a second `close` with a shorter grace ends the drain
 * sooner.
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { type GatewayHarness, rawConnection, startGatewayHarness } from './harness.ts';

/** One request on a new connection: its status, headers and body. */
function once(
  url: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const outgoing = request(`${url}${path}`, { method, headers, agent: false }, (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode!, headers: incoming.headers, body: text }),
        );
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    },
  );
}

/** A stream that stalls after its first events (it keeps a drain going): its reader, first chunk read. */
async function streamInFlight(own: GatewayHarness) {
  own.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'w'.repeat(200) }],
    fault: { stallAfterEvents: 4 },
  });
  const response = await fetch(`${own.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up-chat', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  const reader = response.body!.getReader();
  await reader.read();
  return reader;
}

it('while a stream is in flight the listener accepts: /readyz and new requests get 503 with retry-after and connection: close; close(0) then ends the drain', async () => {
  const own = await startGatewayHarness();
  try {
    const reader = await streamInFlight(own);
    const started = performance.now();
    const closing = own.server.close(30_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // New connections are still taken during the grace: a health check sees the drain.
    const ready = await once(own.server.url, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.headers.connection).toBe('close');
    const late = await once(
      own.server.url,
      'POST',
      '/v1/messages',
      JSON.stringify({ model: 'up-chat', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }),
      { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    );
    expect(late.status).toBe(503);
    expect(late.headers['retry-after']).toBe('1');
    expect(late.headers.connection).toBe('close');
    expect(JSON.parse(late.body)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    const chat = await once(own.server.url, 'POST', '/v1/chat/completions', '{}', {
      'content-type': 'application/json',
    });
    expect([chat.status, chat.headers['retry-after'], chat.headers.connection]).toEqual([503, '1', 'close']);
    // A shorter grace ends the drain now: the stream ends with its in-band 503, the listener closes.
    await own.server.close(0);
    await closing;
    expect(performance.now() - started).toBeLessThan(10_000);
    let rest = '';
    const decoder = new TextDecoder();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += decoder.decode(chunk.value, { stream: true });
    expect(rest).toContain('the gateway shut down before this reply finished');
    await expect(once(own.server.url, 'GET', '/readyz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  } finally {
    await own.close();
  }
}, 20_000);

it('during the drain a reply that began before it closes its connection when it ends, and a WebSocket upgrade gets the 503 with retry-after in its route’s error shape', async () => {
  const own = await startGatewayHarness();
  try {
    // A stream that keeps the drain going, and a whole reply whose headers come a second late.
    const reader = await streamInFlight(own);
    own.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Late.' }],
      fault: { delayHeadersMs: 1000 },
    });
    const streamed = own.emulator.requests.length;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const whole = new Promise<{ status: number; socketClosed: Promise<void> }>((resolve, reject) => {
      const outgoing = request(
        `${own.server.url}/v1/chat/completions`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, agent },
        (incoming) => {
          const socketClosed = new Promise<void>((done) => incoming.socket.once('close', () => done()));
          incoming.resume();
          incoming.on('end', () => resolve({ status: incoming.statusCode!, socketClosed }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] }));
    });
    // The drain begins once the whole reply's request is in flight: upstream, waiting for its headers.
    await expect.poll(() => own.emulator.requests.length, { timeout: 5000 }).toBe(streamed + 1);
    const closing = own.server.close(30_000);
    const served = await whole;
    expect(served.status).toBe(200);
    // Closed by the gateway once the reply ended, while the stream still drains (not at the grace).
    const closedWithin = await Promise.race([
      served.socketClosed.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000)),
    ]);
    expect(closedWithin).toBe(true);
    agent.destroy();
    // A WebSocket upgrade during the drain: the HTTP 503 its route's requests get, body and all.
    const upgrade = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(own.server.url).port), '127.0.0.1', () =>
        socket.write(
          'GET /v1/responses HTTP/1.1\r\nhost: localhost\r\nconnection: Upgrade\r\nupgrade: websocket\r\n' +
            'sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
        ),
      );
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(upgrade).toMatch(/^HTTP\/1\.1 503 /);
    expect(upgrade.toLowerCase()).toContain('retry-after: 1');
    expect(upgrade).toContain('the gateway is shutting down');
    await own.server.close(0);
    await closing;
    await reader.cancel().catch(() => {});
  } finally {
    await own.close();
  }
}, 20_000);

/** A whole HTTP/1.1 request's bytes: a JSON `body` POSTed, or a GET. */
function rawRequest(method: string, path: string, body?: object): string {
  if (body === undefined) return `${method} ${path} HTTP/1.1\r\nhost: localhost\r\n\r\n`;
  const text = JSON.stringify(body);
  return (
    `${method} ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`
  );
}

it('a request pipelined on a keep-alive connection before the drain began is refused in its turn with 503, retry-after and connection: close, and the connection closes after it', async () => {
  const own = await startGatewayHarness();
  try {
    const reader = await streamInFlight(own);
    // Two connections, each a whole reply whose headers come a second late with a request pipelined
    // behind it: a generation (served from Node) on one, a models listing (the Hono app) on the other.
    for (const text of ['First.', 'Other.'])
      own.emulator.enqueue({
        type: 'scripted',
        content: [{ type: 'text', text }],
        fault: { delayHeadersMs: 1000 },
      });
    const chat = { model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] };
    const streamed = own.emulator.requests.length;
    const generation = rawConnection(own.server.url);
    generation.socket.write(rawRequest('POST', '/v1/chat/completions', chat).repeat(2));
    const listing = rawConnection(own.server.url);
    listing.socket.write(rawRequest('POST', '/v1/chat/completions', chat) + rawRequest('GET', '/v1/models'));
    // The drain begins once both first requests are in flight: upstream, waiting for its headers.
    await expect.poll(() => own.emulator.requests.length, { timeout: 5000 }).toBe(streamed + 2);
    const upstreamCalls = own.emulator.requests.length;
    const closing = own.server.close(30_000);
    for (const connection of [generation, listing]) {
      const closedWithin = await Promise.race([
        connection.closed.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3000)),
      ]);
      expect(closedWithin).toBe(true);
      const replies = connection.received().split(/(?=HTTP\/1\.1 )/);
      expect(replies.map((reply) => reply.slice(0, 12))).toEqual(['HTTP/1.1 200', 'HTTP/1.1 503']);
      const refusal = replies[1]!.toLowerCase();
      expect(refusal).toContain('retry-after: 1\r\n');
      expect(refusal).toContain('connection: close\r\n');
      expect(refusal).not.toContain('keep-alive');
      expect(refusal).toContain('the gateway is shutting down');
    }
    // The pipelined generation went nowhere upstream.
    expect(own.emulator.requests.length).toBe(upstreamCalls);
    await own.server.close(0);
    await closing;
    await reader.cancel().catch(() => {});
  } finally {
    await own.close();
  }
}, 20_000);

it('a request whose body is still arriving when the grace ends — a generation, declared or chunked, or a token count — gets the 503 with retry-after and connection: close in its protocol’s shape, not a cut connection', async () => {
  const own = await startGatewayHarness();
  try {
    const messages = JSON.stringify({
      model: 'up-anthropic',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    // `expect: 100-continue`: the gateway's 100 Continue says it has begun reading the body, so the
    // request is in flight (docs/gateway.md).
    const anthropic =
      'content-type: application/json\r\nanthropic-version: 2023-06-01\r\nexpect: 100-continue\r\n';
    // Each request's headers, then (once continued) the first bytes of its body; the rest never comes.
    const requests = [
      [
        `POST /v1/messages HTTP/1.1\r\nhost: localhost\r\n${anthropic}content-length: ${messages.length}\r\n\r\n`,
        '',
      ],
      [
        'POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n' +
          'expect: 100-continue\r\ntransfer-encoding: chunked\r\n\r\n',
        '14\r\n',
      ],
      [
        `POST /v1/messages/count_tokens HTTP/1.1\r\nhost: localhost\r\n${anthropic}content-length: ${messages.length}\r\n\r\n`,
        '',
      ],
    ] as const;
    const continued = 'HTTP/1.1 100 Continue\r\n\r\n';
    const connections = await Promise.all(
      requests.map(async ([head, framing]) => {
        const connection = rawConnection(own.server.url);
        connection.socket.write(head);
        await expect.poll(connection.received, { timeout: 5000 }).toBe(continued);
        connection.socket.write(framing + messages.slice(0, 20));
        return connection;
      }),
    );
    const started = performance.now();
    // The drain waits for them (each is in flight), then cancels them at the end of the grace.
    await own.server.close(300);
    expect(performance.now() - started).toBeGreaterThan(250);
    expect(performance.now() - started).toBeLessThan(1500);
    const replies = await Promise.all(
      connections.map(async ({ closed, received }) => {
        await closed;
        const [head, body] = received().slice(continued.length).split('\r\n\r\n');
        return { head: head!.toLowerCase(), body: JSON.parse(body!) as Record<string, unknown> };
      }),
    );
    for (const { head } of replies) {
      expect(head).toMatch(/^http\/1\.1 503 /);
      expect(head).toContain('retry-after: 1\r\n');
      expect(head).toContain('connection: close');
    }
    const [generation, chat, count] = replies.map(({ body }) => body);
    expect(generation).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(chat).toMatchObject({ error: { message: expect.stringContaining('shut down') } });
    expect(count).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(own.emulator.requests).toHaveLength(0);
  } finally {
    await own.close();
  }
}, 20_000);
