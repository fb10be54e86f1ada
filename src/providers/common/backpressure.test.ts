/** Backpressure and bounded memory of the shared runtime, on a real loopback socket. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { collectStream as collect } from '../../testing/collect.ts';
import { createHttpAdapter } from './http-adapter.ts';
import type { ProviderDefinition } from './definition.ts';
import { createTestDefinition } from './test-provider.ts';

const request: CanonicalRequest = { model: 'test:model', transcript: [userText('hi')], maxOutputTokens: 10 };
const textEvent = (value: string) => `data: ${JSON.stringify({ t: 'text', v: value })}\n\n`;
const endEvent = `data: ${JSON.stringify({ t: 'end' })}\n\n`;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function adapter(baseURL: string, options: Parameters<typeof createHttpAdapter>[1] = {}) {
  return createHttpAdapter(createTestDefinition(), {
    baseURL,
    apiKey: 'sk-test',
    retryBaseDelay: 1,
    ...options,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('backpressure: streams are pulled by the consumer', () => {
  it('a stalled consumer keeps client memory bounded while a 100 MB response waits unread', async () => {
    const total = 100 * 1024 * 1024;
    // ~64 KiB writes of 1 KiB text events; the server honours `drain`, so what it could write is
    // exactly what the client (and the kernel's socket buffers) took in.
    const block = textEvent('x'.repeat(1000)).repeat(64);
    let written = 0;
    let closed = false;
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.on('close', () => (closed = true));
      const pump = () => {
        while (written < total && !closed) {
          written += block.length;
          if (!res.write(block)) return void res.once('drain', pump);
        }
        if (!closed) res.end(endEvent);
      };
      pump();
    });
    const stream = adapter(url).stream(request);
    const iterator = stream[Symbol.asyncIterator]();
    const rssBefore = process.memoryUsage().rss;
    expect((await iterator.next()).value).toMatchObject({ type: 'message-start' });
    await sleep(1500); // the consumer stalls
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    // Socket buffers and undici's queue hold a few MB; 100 MB were offered.
    expect(written).toBeLessThan(16 * 1024 * 1024);
    expect(stream.buffered).toBeLessThan(200);
    expect(rssGrowth).toBeLessThan(64 * 1024 * 1024);
    // Reading on resumes the socket; breaking off closes it.
    for (let index = 0; index < 5_000; index++) await iterator.next();
    expect(written).toBeGreaterThan(4 * 1024 * 1024);
    await iterator.return?.();
    await expect.poll(() => closed, { timeout: 5_000 }).toBe(true);
    expect(written).toBeLessThan(total);
  }, 20_000);

  it('a consumer slower than the idle timeout does not trip it (the server was not silent)', async () => {
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(textEvent('a'.repeat(100)).repeat(5_000) + endEvent);
    });
    const stream = adapter(url, { idleTimeout: 150, maxRetries: 0 }).stream(request);
    let deltas = 0;
    for await (const event of stream) {
      if (event.type !== 'text-delta') continue;
      if (deltas++ === 10) await sleep(400); // paused longer than the idle timeout
    }
    expect(deltas).toBe(5_000);
    expect((await stream.result()).finishReason).toBe('completed');
  });

  it('result() without iterating reads the whole stream (events are dropped, not buffered)', async () => {
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(textEvent('ab').repeat(20_000) + endEvent);
    });
    const stream = adapter(url).stream(request);
    const response = await stream.result();
    expect(response.content).toEqual([{ type: 'text', text: 'ab'.repeat(20_000) }]);
    expect(stream.buffered).toBe(0);
  });

  it('cancelling a stalled stream ends it as cancelled at once', async () => {
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(textEvent('x').repeat(10_000));
    });
    const controller = new AbortController();
    const stream = adapter(url).stream(request, { signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await sleep(100);
    controller.abort();
    const response = await stream.result();
    expect(response.finishReason).toBe('cancelled');
  });
});

describe('size limits: one SSE event or JSON body above the limit fails, classified', () => {
  it('an SSE event larger than maxEventBytes fails with server_error response_too_large, content kept', async () => {
    let requests = 0;
    const url = await listen((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(textEvent('kept'));
      // An event that never ends: 8 MiB of data without the blank line.
      res.write(`data: {"t":"text","v":"${'y'.repeat(8 * 1024 * 1024)}`);
    });
    const { events, error, response } = await collect(
      adapter(url, { maxEventBytes: 1024 * 1024 }).stream(request),
    );
    expect(error).toMatchObject({
      errorClass: 'server_error',
      providerCode: 'response_too_large',
      retryable: false,
    });
    expect((error as Error).message).toMatch(/SSE event larger than the limit of 1048576 bytes/);
    expect(requests).toBe(1);
    expect(events.some((event) => event.type === 'text-delta' && event.delta === 'kept')).toBe(true);
    expect(response?.finishReason).toBe('error');
  });

  it('an SSE event just under maxEventBytes is delivered whole', async () => {
    const big = 'z'.repeat(900 * 1024);
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(textEvent(big) + endEvent);
    });
    const response = await adapter(url, { maxEventBytes: 1024 * 1024 })
      .stream(request)
      .result();
    expect(response.content).toEqual([{ type: 'text', text: big }]);
  });

  it('a JSON body larger than maxBodyBytes fails complete() with server_error response_too_large', async () => {
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ text: 'q'.repeat(3 * 1024 * 1024) }));
    });
    await expect(adapter(url, { maxBodyBytes: 1024 * 1024 }).complete(request)).rejects.toMatchObject({
      errorClass: 'server_error',
      providerCode: 'response_too_large',
      retryable: false,
    });
  });
});

describe('a burst read at once: its first content goes out before the rest is decoded', () => {
  /** A fetch whose streamed body is `body` in exactly one chunk: the adapter reads the whole burst at once. */
  const oneChunk = (body: string): typeof fetch =>
    (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(body));
            controller.close();
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      )) as typeof fetch;

  /** The test provider, counting the events its parser has been given. */
  function countingDefinition(): { definition: ProviderDefinition; decoded: () => number } {
    let decoded = 0;
    const base = createTestDefinition();
    const definition: ProviderDefinition = {
      ...base,
      createStreamParser(context, builder) {
        const parser = base.createStreamParser(context, builder);
        return {
          ...parser,
          onEvent(event, data) {
            decoded++;
            parser.onEvent(event, data);
          },
        };
      },
    };
    return { definition, decoded: () => decoded };
  }

  const words = (count: number) => Array.from({ length: count }, (_, index) => `w${index} `);

  /** Streams `body` (one read); how many events the parser had decoded when the first text reached the consumer, and the text. */
  async function firstTextOf(body: string): Promise<{ decodedAtFirstText?: number; text: string }> {
    const { definition, decoded } = countingDefinition();
    const stream = createHttpAdapter(definition, {
      baseURL: 'http://burst.test',
      apiKey: 'sk-test',
      fetch: oneChunk(body),
    }).stream(request);
    let decodedAtFirstText: number | undefined;
    let text = '';
    for await (const event of stream) {
      if (event.type !== 'text-delta') continue;
      decodedAtFirstText ??= decoded();
      text += event.delta;
    }
    return { decodedAtFirstText, text };
  }

  it('the consumer has its first text before the rest of a one-read burst is decoded', async () => {
    // ~60 KB in one read (a host that buffers, a replayed reply). Before, every event of the read
    // was decoded first: the consumer (a gateway's client) had its first byte only after the burst.
    const burst = words(1500).map(textEvent).join('') + endEvent;
    expect(await firstTextOf(burst)).toEqual({ decodedAtFirstText: 1, text: words(1500).join('') });
  });

  it('a short reply in one read (2 KB, as a fast host sends it whole): first text before the rest is decoded', async () => {
    // Before, a read of 16 KiB or less was decoded whole (all 41 events) before the first text.
    const reply = words(40).map(textEvent).join('') + endEvent;
    expect(reply.length).toBeLessThan(4 * 1024);
    expect(await firstTextOf(reply)).toEqual({ decodedAtFirstText: 1, text: words(40).join('') });
  });

  it.each([
    ['LF', '\n\n', 0],
    ['CRLF', '\r\n\r\n', 0],
    ['CR', '\r\r', 0],
    ['LF, the first content after 20 comments and 10 empty events', '\n\n', 10],
  ])(
    'a burst split at its first content is read whole and in order (%s blank lines)',
    async (_name, separator, empties) => {
      const preamble =
        ': ping\n\n'.repeat(20) + `data: ${JSON.stringify({ t: 'text', v: '' })}${separator}`.repeat(empties);
      const burst =
        preamble +
        words(1000)
          .map((word) => `data: ${JSON.stringify({ t: 'text', v: word })}${separator}`)
          .join('') +
        endEvent;
      expect(burst.length).toBeGreaterThan(16 * 1024);
      const { definition } = countingDefinition();
      const { events, response } = await collect(
        createHttpAdapter(definition, {
          baseURL: 'http://burst.test',
          apiKey: 'sk-test',
          fetch: oneChunk(burst),
        }).stream(request),
      );
      const text = events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');
      expect(text).toBe(words(1000).join(''));
      expect(response?.finishReason).toBe('completed');
    },
  );
});
