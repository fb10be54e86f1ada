import { collectStream as collect } from '../../testing/collect.ts';
import { getEventListeners } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../core/events.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { createHttpAdapter } from './http-adapter.ts';
import { createTestDefinition } from './test-provider.ts';

const apiKey = 'sk-test-SECRET-0123456789abcdef';
const request: CanonicalRequest = { model: 'test:model', transcript: [userText('hi')], maxOutputTokens: 10 };
const text = (v: string) => ({ data: { t: 'text', v } });
const end = { data: { t: 'end' } };

let emulator: Emulator;
beforeEach(async () => {
  emulator = await startEmulator();
});
afterEach(async () => {
  await emulator.close();
});

function adapter(options: Parameters<typeof createHttpAdapter>[1] = {}) {
  return createHttpAdapter(createTestDefinition(), {
    baseURL: emulator.url,
    apiKey,
    retryBaseDelay: 1,
    ...options,
  });
}

describe('transport and runtime over a real loopback socket', () => {
  it('connection refused → network error after retries, finish with reason error', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const retries: number[] = [];
    const refused = createHttpAdapter(createTestDefinition(), {
      baseURL: `http://127.0.0.1:${port}`,
      apiKey,
      maxRetries: 1,
      retryBaseDelay: 1,
    });
    const { events, error } = await collect(
      refused.stream(request, { onRetry: (info) => retries.push(info.attempt) }),
    );
    expect(error).toMatchObject({ errorClass: 'network', retryable: true });
    expect(retries).toEqual([1]);
    assertStreamInvariants(events);
    expect(events.at(-1)).toMatchObject({ type: 'finish', response: { finishReason: 'error' } });
  });

  it('reset mid-stream keeps the partial content and raises a network error', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [text('Hello'), text(' wor'), text('ld'), end],
      fault: { disconnectAfterEvents: 2 },
      enforce: false,
      allowNoAuth: true,
    });
    const { events, error } = await collect(adapter().stream(request));
    expect(error).toMatchObject({ errorClass: 'network', providerCode: 'stream_truncated', retryable: true });
    assertStreamInvariants(events);
    const finish = events.at(-1);
    expect(finish?.type === 'finish' && finish.response.finishReason).toBe('error');
    expect(finish?.type === 'finish' && finish.response.content).toEqual([
      { type: 'text', text: 'Hello wor', incomplete: true },
    ]);
  });

  it('stall past the idle timeout → network timeout error, partial content kept', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [text('a'), text('b'), end],
      fault: { stallAfterEvents: 1 },
      enforce: false,
      allowNoAuth: true,
    });
    const { events, error } = await collect(adapter({ idleTimeout: 200 }).stream(request));
    expect(error).toMatchObject({ errorClass: 'network', providerCode: 'timeout_idle' });
    assertStreamInvariants(events);
    expect(events.at(-1)).toMatchObject({
      response: { finishReason: 'error', content: [{ type: 'text', text: 'a' }] },
    });
  });

  it('truncated SSE (no terminal event) is retried before any event, then reported', async () => {
    emulator.setDefault({ type: 'sse', events: [], enforce: false, allowNoAuth: true });
    const { events, error } = await collect(adapter({ maxRetries: 2 }).stream(request));
    expect(error).toMatchObject({ errorClass: 'network', providerCode: 'stream_truncated' });
    expect(emulator.requests).toHaveLength(3);
    assertStreamInvariants(events);
  });

  it('garbage bytes in the stream → classified server error, content so far kept', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [text('ok'), text('x'), end],
      fault: { malformedAtEvent: 2 },
      enforce: false,
      allowNoAuth: true,
    });
    const { events, error } = await collect(adapter().stream(request));
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'invalid_stream' });
    assertStreamInvariants(events);
    expect(events.at(-1)).toMatchObject({ response: { content: [{ type: 'text', text: 'ok' }] } });
  });

  it('429 with retry-after is honoured, then succeeds', async () => {
    emulator.enqueue({
      type: 'json',
      status: 429,
      body: { error: { code: 'rate', message: 'slow down' } },
      headers: { 'retry-after': '0.3' },
      enforce: false,
      allowNoAuth: true,
    });
    emulator.enqueue({ type: 'sse', events: [text('done'), end], enforce: false, allowNoAuth: true });
    const delays: number[] = [];
    const started = performance.now();
    const response = await adapter()
      .stream(request, { onRetry: (info) => delays.push(info.delayMs) })
      .result();
    expect(delays).toEqual([300]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(response.content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('5xx then success: complete() retries transparently', async () => {
    emulator.enqueue({
      type: 'json',
      status: 503,
      body: { error: { message: 'unavailable' } },
      enforce: false,
      allowNoAuth: true,
    });
    emulator.enqueue({
      type: 'json',
      status: 200,
      body: { text: 'recovered' },
      enforce: false,
      allowNoAuth: true,
    });
    const response = await adapter().complete(request);
    expect(response.content).toEqual([{ type: 'text', text: 'recovered' }]);
    expect(emulator.requests).toHaveLength(2);
  });

  it('total attempts = 1 + maxRetries, and the last error is raised with retryable=true', async () => {
    emulator.setDefault({ type: 'json', status: 500, body: 'oops', enforce: false, allowNoAuth: true });
    await expect(adapter({ maxRetries: 3 }).complete(request)).rejects.toMatchObject({
      errorClass: 'server_error',
      retryable: true,
      status: 500,
    });
    expect(emulator.requests).toHaveLength(4);
  });

  it("the provider's x-should-retry wins over the status: a 503 saying false is sent once, a 409 saying true again", async () => {
    const failure = (status: number, shouldRetry: string) => ({
      type: 'json' as const,
      status,
      body: { error: { message: 'busy' } },
      headers: { 'x-should-retry': shouldRetry },
      enforce: false,
      allowNoAuth: true,
    });
    emulator.enqueue(failure(503, 'false'));
    await expect(adapter({ maxRetries: 3 }).complete(request)).rejects.toMatchObject({
      errorClass: 'server_error',
      retryable: false,
      status: 503,
    });
    expect(emulator.requests).toHaveLength(1);

    emulator.enqueue(failure(409, 'true'));
    emulator.enqueue({
      type: 'json',
      status: 200,
      body: { text: 'again' },
      enforce: false,
      allowNoAuth: true,
    });
    const response = await adapter({ maxRetries: 3 }).complete(request);
    expect(response.content).toEqual([{ type: 'text', text: 'again' }]);
    expect(emulator.requests).toHaveLength(3);
  });

  it('a long-lived signal shared by many streams holds no listener once each was read to its end', async () => {
    const controller = new AbortController();
    const client = adapter();
    for (let index = 0; index < 3; index++) {
      emulator.enqueue({
        type: 'sse',
        events: [text('a'), text('b'), end],
        enforce: false,
        allowNoAuth: true,
      });
      // A consumer a little behind the producer: the stream settles while events are still buffered.
      const events: StreamEvent[] = [];
      for await (const event of client.stream(request, { signal: controller.signal })) {
        events.push(event);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect(events.at(-1)).toMatchObject({ type: 'finish', response: { finishReason: 'completed' } });
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('abort during backoff ends the call as cancelled without another attempt', async () => {
    emulator.setDefault({
      type: 'json',
      status: 429,
      body: {},
      headers: { 'retry-after': '30' },
      enforce: false,
      allowNoAuth: true,
    });
    const controller = new AbortController();
    const stream = adapter().stream(request, {
      signal: controller.signal,
      onRetry: () => setTimeout(() => controller.abort(), 20),
    });
    const { events, error } = await collect(stream);
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'finish', response: { finishReason: 'cancelled' } });
    expect(emulator.requests).toHaveLength(1);
  });

  it('cancel(requestId) mid-stream ends open parts, finishes cancelled and terminates; idempotent', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        text('partial'),
        { data: { t: 'tool', id: 'call_1', name: 'search' } },
        { data: { t: 'args', v: '{"q": "ab' } },
        { data: { t: 'args', v: 'c"}' } },
        end,
      ],
      fault: { stallAfterEvents: 3 },
      enforce: false,
      allowNoAuth: true,
    });
    const client = adapter();
    const stream = client.stream({ ...request, requestId: '01TESTREQUEST' as never });
    const events: StreamEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'tool-call-delta') expect(client.cancel('01TESTREQUEST')).toBe(true);
    }
    expect(client.cancel('01TESTREQUEST')).toBe(false);
    assertStreamInvariants(events);
    expect(events.at(-1)).toMatchObject({
      response: {
        finishReason: 'cancelled',
        content: [
          { type: 'text', text: 'partial' },
          { type: 'tool-call', name: 'search', input: { q: 'ab' } },
        ],
      },
    });
  });

  it('a mid-stream error event → finish with reason error, then the classified error', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [text('so far'), { data: { t: 'error', code: 'overloaded', message: 'busy' } }],
      enforce: false,
      allowNoAuth: true,
    });
    const { events, error } = await collect(adapter().stream(request));
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'overloaded' });
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      response: { finishReason: 'error', content: [{ type: 'text', text: 'so far' }] },
    });
  });

  it('a capability the model lacks fails before any HTTP call', async () => {
    const limited = createHttpAdapter(createTestDefinition({ tools: false }), {
      baseURL: emulator.url,
      apiKey,
    });
    await expect(
      limited.complete({ ...request, tools: [{ name: 'x', inputSchema: {} }] }),
    ).rejects.toMatchObject({
      errorClass: 'invalid_request',
      providerCode: 'unsupported_capability',
    });
    expect(emulator.requests).toHaveLength(0);
  });

  it('error messages name provider, method and URL — never the API key', async () => {
    emulator.enqueue({
      type: 'json',
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${apiKey}` } },
      enforce: false,
      allowNoAuth: true,
    });
    const error = await adapter()
      .complete(request)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'auth', status: 401 });
    const message = String((error as Error).message);
    expect(message).toContain(`test: POST ${emulator.url}/v1/chat/completions`);
    expect(message).not.toContain(apiKey);
    expect(JSON.stringify(error)).not.toContain(apiKey);
  });

  it('the API key travels in the header, and close() releases the pool', async () => {
    emulator.enqueue({ type: 'json', body: { text: 'x' }, enforce: false, allowNoAuth: true });
    const client = adapter();
    await client.complete(request);
    expect(emulator.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
    await client.close();
  });
});

describe('bad input from the provider or the caller', () => {
  it('an unexpected chunk shape becomes a classified server error and the finish still ends every part', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        { data: { t: 'tool', id: 'call_1', name: 'search' } },
        { data: { t: 'args', v: 42 } },
        { data: { t: 'args', v: '{"q": 1}' } },
        { data: 'null' },
      ],
      enforce: false,
      allowNoAuth: true,
    });
    const { events, error } = await collect(adapter().stream(request));
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'invalid_stream' });
    assertStreamInvariants(events);
    expect(events.at(-1)).toMatchObject({
      response: { finishReason: 'error', content: [{ type: 'tool-call', input: { q: 1 } }] },
    });
  });

  it('complete(): a body the parser cannot read is a classified server error, not a TypeError', async () => {
    emulator.enqueue({ type: 'json', body: { text: 42 }, enforce: false, allowNoAuth: true });
    emulator.enqueue({ type: 'json', body: null, enforce: false, allowNoAuth: true });
    // A non-string text delta is dropped, never emitted as a non-string.
    await expect(adapter({ maxRetries: 0 }).complete(request)).resolves.toMatchObject({
      content: [{ type: 'text', text: '' }],
    });
    await expect(adapter({ maxRetries: 0 }).complete(request)).rejects.toMatchObject({
      errorClass: 'server_error',
      providerCode: 'invalid_response',
    });
  });

  it('an API key with control characters fails each call before HTTP, without echoing it', async () => {
    const secret = 'sk-proj-TOPSECRET01234\n56789abcdef';
    const created = createHttpAdapter(createTestDefinition(), { baseURL: emulator.url, apiKey: secret });
    const error = await created.complete(request).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'auth', providerCode: 'invalid_api_key_format' });
    expect(String((error as Error).message)).not.toContain('TOPSECRET');
    expect(emulator.requests).toHaveLength(0);
  });

  it('network error messages never echo secret header values', async () => {
    const { redactHeaderValues } = await import('../../transport/http.ts');
    expect(
      redactHeaderValues('bad header "Bearer sk-abc123456789"', { authorization: 'Bearer sk-abc123456789' }),
    ).toBe('bad header "[REDACTED]"');
  });
});

describe('cancellation reaches preparation calls', () => {
  it('cancel(requestId) during an async prepare (e.g. cache creation) ends the stream promptly as cancelled', async () => {
    emulator.enqueue({
      type: 'json',
      body: {},
      fault: { delayHeadersMs: 5_000 },
      enforce: false,
      allowNoAuth: true,
    });
    const definition = createTestDefinition();
    definition.prepare = async (_request, context) => {
      await context.fetchJson('POST', '/v1/chat/completions', {});
    };
    const client = createHttpAdapter(definition, { baseURL: emulator.url, apiKey, maxRetries: 0 });
    const started = performance.now();
    const stream = client.stream({ ...request, requestId: '01PREPARE' as never });
    setTimeout(() => client.cancel('01PREPARE'), 50);
    const { events, error } = await collect(stream);
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ response: { finishReason: 'cancelled' } });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('lifecycle and body reads', () => {
  it('a slowly dripping JSON body is not cut by the idle timeout (each chunk restarts it)', async () => {
    const body = JSON.stringify({ text: 'dripped' });
    const server = createHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      let offset = 0;
      const timer = setInterval(() => {
        response.write(body.slice(offset, offset + 4));
        offset += 4;
        if (offset >= body.length) {
          clearInterval(timer);
          response.end();
        }
      }, 100);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const client = createHttpAdapter(createTestDefinition(), {
        baseURL: `http://127.0.0.1:${port}`,
        apiKey,
        idleTimeout: 300,
        maxRetries: 0,
      });
      // Six 100 ms gaps: 600 ms in all, twice the idle timeout, never 300 ms of silence.
      await expect(client.complete(request)).resolves.toMatchObject({
        content: [{ type: 'text', text: 'dripped' }],
      });
      await client.close();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('calls after close() fail at once, are not retried and are not network errors', async () => {
    const client = adapter();
    await client.close();
    const retries: number[] = [];
    await expect(
      client.complete(request, { onRetry: (info) => retries.push(info.attempt) }),
    ).rejects.toMatchObject({
      errorClass: 'other',
      providerCode: 'adapter_closed',
      retryable: false,
    });
    const { events, error } = await collect(client.stream(request));
    expect(error).toMatchObject({ providerCode: 'adapter_closed' });
    assertStreamInvariants(events);
    expect(retries).toEqual([]);
    expect(emulator.requests).toHaveLength(0);
  });

  it('an error thrown by a custom fetch (e.g. a cassette refusing a request) is not retried as a network error', async () => {
    let calls = 0;
    const refusing = (async () => {
      calls++;
      throw new Error('cassette has no matching exchange');
    }) as unknown as typeof fetch;
    const client = createHttpAdapter(createTestDefinition(), {
      baseURL: emulator.url,
      apiKey,
      fetch: refusing,
    });
    const error = await client.complete(request).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'other', retryable: false });
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(calls).toBe(1);
  });
});
