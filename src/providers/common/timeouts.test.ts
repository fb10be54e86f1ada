/** Timeouts, the connection pool and redirects, against tiny node:http servers on 127.0.0.1. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { collectStream } from '../../testing/collect.ts';
import { createAnthropic } from '../anthropic/index.ts';
import { createGemini } from '../gemini/index.ts';
import { createHttpAdapter } from './http-adapter.ts';
import { createTestDefinition } from './test-provider.ts';

const request: CanonicalRequest = { model: 'test:model', transcript: [userText('hi')], maxOutputTokens: 10 };
const sse = (...events: object[]) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');

interface Loopback {
  url: string;
  hits: Array<{ path: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}
const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: (request: IncomingMessage, response: ServerResponse, body: string) => void) {
  const hits: Loopback['hits'] = [];
  const server: Server = createServer((incoming, response) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
    incoming.on('end', () => {
      hits.push({ path: incoming.url ?? '', headers: incoming.headers, body });
      handler(incoming, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const loopback: Loopback = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(loopback);
  return loopback;
}

const adapterFor = (baseURL: string, options: Parameters<typeof createHttpAdapter>[1] = {}) =>
  createHttpAdapter(createTestDefinition(), {
    baseURL,
    apiKey: 'test-key-0000',
    retryBaseDelay: 1,
    ...options,
  });

describe('timeout bounds the whole call, retries and backoff included', () => {
  it('a retry-after longer than the time left is not waited for: the rate-limit error comes at once', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '5' });
      response.end(JSON.stringify({ error: { message: 'slow down' } }));
    });
    const started = performance.now();
    const error = await adapterFor(server.url, { timeout: 3000, maxRetries: 3 })
      .complete(request)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'rate_limit', retryAfterSeconds: 5 });
    // Well before the 3 s deadline (waiting for it would take 3 s): room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(2000);
    expect(server.hits).toHaveLength(1);
  });

  it('a retry in flight at the deadline is cut with timeout_total (stream and complete)', async () => {
    const server = await serve((_request, response) => {
      setTimeout(() => {
        response.writeHead(503, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'unavailable' } }));
      }, 400);
    });
    const adapter = adapterFor(server.url, { timeout: 700, maxRetries: 10 });
    for (const run of [
      () => adapter.complete(request),
      async () => {
        const { error } = await collectStream(adapter.stream(request));
        throw error;
      },
    ]) {
      const started = performance.now();
      const error = await run().catch((caught: unknown) => caught);
      const elapsed = performance.now() - started;
      expect(error).toMatchObject({ errorClass: 'network', providerCode: 'timeout_total' });
      expect(elapsed).toBeGreaterThanOrEqual(650);
      expect(elapsed).toBeLessThan(1500);
    }
  });
});

describe('the first-byte timer starts when the request is on the wire', () => {
  it('calls queued for a pooled connection do not time out while they wait (maxConnections: 2)', async () => {
    let open = 0;
    let peak = 0;
    const server = await serve((_request, response) => {
      open++;
      peak = Math.max(peak, open);
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(sse({ t: 'text', v: 'ok' }, { t: 'end' }));
        open--;
      }, 120);
    });
    const adapter = adapterFor(server.url, { maxConnections: 2, firstByteTimeout: 400, maxRetries: 0 });
    const results = await Promise.all(
      Array.from({ length: 12 }, () => collectStream(adapter.stream(request))),
    );
    expect(results.map((result) => result.error)).toEqual(Array(12).fill(undefined));
    expect(results.every((result) => result.response?.content[0]?.type === 'text')).toBe(true);
    expect(peak).toBeLessThanOrEqual(2);
    await adapter.close();
  });

  it('a server that accepts the request but never answers still times out at first byte', async () => {
    const server = await serve(() => {});
    const error = await adapterFor(server.url, { firstByteTimeout: 150, maxRetries: 0 })
      .complete(request)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'network', providerCode: 'timeout_first-byte' });
  });
});

describe('an abort while an error body is read ends as cancelled', () => {
  it('complete() rejects with CancelledError and stream() finishes with reason cancelled', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.write('{"error":{"message":"part');
      // …and the rest never comes.
    });
    const adapter = adapterFor(server.url, { maxRetries: 0 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    await expect(adapter.complete(request, { signal: controller.signal })).rejects.toMatchObject({
      errorClass: 'cancelled',
    });
    const streamController = new AbortController();
    setTimeout(() => streamController.abort(), 150);
    const { events, error } = await collectStream(
      adapter.stream(request, { signal: streamController.signal }),
    );
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'finish', response: { finishReason: 'cancelled' } });
  });
});

describe('credentials never follow a redirect to another origin or outside the base URL', () => {
  const adapters = [
    [
      'anthropic',
      (baseURL: string) => createAnthropic({ baseURL, apiKey: 'anthropic-redirect-key', maxRetries: 0 }),
    ],
    ['gemini', (baseURL: string) => createGemini({ baseURL, apiKey: 'gemini-redirect-key', maxRetries: 0 })],
  ] as const;

  it.each(adapters)(
    '%s: 302/307/308 to another host is refused; the other host receives nothing',
    async (_name, create) => {
      const elsewhere = await serve((_request, response) => response.writeHead(200).end('{}'));
      for (const status of [302, 307, 308]) {
        const origin = await serve((_request, response) => {
          response.writeHead(status, { location: `${elsewhere.url}/steal` }).end();
        });
        const error = await create(origin.url)
          .complete({ ...request, model: 'claude-sonnet-4-5' })
          .catch((caught: unknown) => caught);
        expect(error).toMatchObject({
          errorClass: 'server_error',
          providerCode: 'cross_origin_redirect',
          retryable: false,
        });
        expect((error as Error).message).toContain(elsewhere.url);
        const { error: streamError } = await collectStream(
          create(origin.url).stream({ ...request, model: 'gemini-2.5-flash' }),
        );
        expect(streamError).toMatchObject({ providerCode: 'cross_origin_redirect' });
      }
      expect(elsewhere.hits).toHaveLength(0);
    },
  );

  it('a same-origin 307 under the base URL is followed with the method, body and credentials kept', async () => {
    const server = await serve((incoming, response) => {
      if (incoming.url?.startsWith('/api/v1/')) {
        response.writeHead(307, { location: incoming.url.replace('/api/v1/', '/api/moved/') }).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ text: 'moved' }));
    });
    const response = await adapterFor(`${server.url}/api`).complete(request);
    expect(response.content).toEqual([{ type: 'text', text: 'moved' }]);
    expect(server.hits.map((hit) => hit.path)).toEqual([
      '/api/v1/chat/completions',
      '/api/moved/chat/completions',
    ]);
    expect(server.hits[1]?.body).toBe(server.hits[0]?.body);
    expect(server.hits[1]?.headers.authorization).toBe('Bearer test-key-0000');
  });

  it.each([302, 307, 308])(
    'a same-origin %i to a path outside the base URL is refused: that path receives nothing',
    async (status) => {
      for (const location of ['/steal/path', '/api/../steal', '/apix/v1/chat/completions', '/']) {
        const server = await serve((incoming, response) => {
          if (incoming.url?.startsWith('/api/')) response.writeHead(status, { location }).end();
          else response.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"stolen"}');
        });
        const error = await adapterFor(`${server.url}/api`, { maxRetries: 0 })
          .complete(request)
          .catch((caught: unknown) => caught);
        expect(error).toMatchObject({
          errorClass: 'server_error',
          providerCode: 'redirect_outside_base_url',
          retryable: false,
        });
        const { error: streamError } = await collectStream(
          adapterFor(`${server.url}/api`, { maxRetries: 0 }).stream(request),
        );
        expect(streamError).toMatchObject({ providerCode: 'redirect_outside_base_url' });
        // The key never reached a path outside /api.
        expect(server.hits.map((hit) => hit.path)).toEqual([
          '/api/v1/chat/completions',
          '/api/v1/chat/completions',
        ]);
      }
    },
  );

  it('a 303 is refused: the body is not sent again, nor turned into a GET', async () => {
    const server = await serve((incoming, response) => {
      if (incoming.url === '/v1/chat/completions') response.writeHead(303, { location: '/v1/result' }).end();
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"x"}');
    });
    await expect(adapterFor(server.url, { maxRetries: 0 }).complete(request)).rejects.toMatchObject({
      errorClass: 'server_error',
      providerCode: 'see_other_redirect',
      retryable: false,
    });
    expect(server.hits.map((hit) => hit.path)).toEqual(['/v1/chat/completions']);
  });

  it('a redirect loop stops after 5 hops with too_many_redirects', async () => {
    const server = await serve((incoming, response) => {
      response.writeHead(307, { location: incoming.url ?? '/' }).end();
    });
    await expect(adapterFor(server.url).complete(request)).rejects.toMatchObject({
      providerCode: 'too_many_redirects',
    });
    expect(server.hits).toHaveLength(6);
  });
});

describe('one classification per condition on stream() and complete()', () => {
  it('an HTML page with status 200 is server_error invalid_response on both', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html><body>Please log in to the Wi-Fi</body></html>');
    });
    const adapter = adapterFor(server.url, { maxRetries: 0 });
    const fromComplete = await adapter.complete(request).catch((caught: unknown) => caught);
    const { error: fromStream, events } = await collectStream(adapter.stream(request));
    for (const error of [fromComplete, fromStream]) {
      expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'invalid_response' });
    }
    expect(events.at(-1)).toMatchObject({ type: 'finish', response: { finishReason: 'error' } });
  });
});
