/**
 * Operating the gateway: /healthz, /readyz and /metrics, clients that leave (cancelled upstream
 * calls, logged 499), request ids and the overhead header.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createGateway } from 'switchyard-ai/gateway';
import { createMemoryStateStore } from 'switchyard-ai/state';
import { chatBody, hello, useServerHarness } from './server-harness.ts';

const { harness, post, scrapeMetrics } = useServerHarness();

describe('operations', () => {
  it.each([
    ['no key', {}, 401],
    ['a key that is not an admin’s', { authorization: 'Bearer team-key-1' }, 403],
    ['an admin key', { authorization: 'Bearer ops-key-2' }, 200],
  ])('with keys configured, /metrics with %s is a %i', async (_, headers, status) => {
    const response = await fetch(`${harness.server.url}/metrics`, { headers });
    expect(response.status).toBe(status);
    const text = await response.text();
    if (status === 200) expect(text).toContain('switchyard_gateway_requests_total');
    else expect(text).not.toContain('switchyard_gateway');
  });

  it('/healthz, /readyz and /metrics', async () => {
    expect((await fetch(`${harness.server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${harness.server.url}/readyz`)).status).toBe(200);
    const metrics = await (await scrapeMetrics()).text();
    expect(metrics).toContain('switchyard_gateway_requests_total');
    expect(metrics).toContain('switchyard_gateway_in_flight_requests');
    expect(metrics).toContain('switchyard_gateway_circuit_state');
  });

  it.each([
    ['/v1/chat/completions', 'POST', 'openai-chat', 'served directly', 'generate'],
    ['/v1beta/models/up-gemini:generateContent', 'POST', 'gemini', 'served directly', 'generate'],
    ['/v1/models', 'GET', 'openai-chat', 'the Hono app’s route', 'models'],
  ])(
    'a request refused for its key (%s) is in the access log and the metrics (%s, %s)',
    async (path, method, protocol, _, route) => {
      const scrape = async () => await (await scrapeMetrics()).text();
      const counted = (text: string) =>
        Number(
          new RegExp(
            `switchyard_gateway_requests_total\\{protocol="${protocol}",model="unknown",status="401",route="${route}"\\} (\\d+)`,
          ).exec(text)?.[1] ?? 0,
        );
      const before = counted(await scrape());
      const logged = harness.accessLog.length;
      const response = await fetch(`${harness.server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: 'Bearer guessed-key' },
        ...(method === 'POST' ? { body: chatBody() } : {}),
      });
      expect(response.status).toBe(401);
      await expect.poll(() => harness.accessLog.length).toBe(logged + 1);
      const line = harness.accessLog.at(-1)!;
      expect(line).toMatchObject({ status: 401, errorClass: 'auth', protocol, path, key: null });
      expect(JSON.stringify(line)).not.toContain('guessed-key');
      expect(counted(await scrape())).toBe(before + 1);
    },
  );

  it('concurrent /metrics scrapes each show every circuit, when the availability store answers asynchronously (as Redis does)', async () => {
    const state = createMemoryStateStore({});
    const read = state.availability.get.bind(state.availability);
    let turn = 0;
    // Each read answers after a different number of event-loop turns: the scrapes interleave.
    state.availability.get = async (key) => {
      for (let wait = turn++ % 7; wait > 0; wait--) await new Promise((resolve) => setImmediate(resolve));
      return read(key);
    };
    const adapter = { type: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-unused-in-this-test' };
    const gateway = createGateway({
      state,
      accessLog: () => {},
      config: { builtins: false, adapters: { a: adapter, b: adapter, c: adapter }, models: { 'a:m': {} } },
    });
    const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
    try {
      const scrapes = await Promise.all(
        Array.from({ length: 12 }, async () => await (await fetch(`${server.url}/metrics`)).text()),
      );
      const series = (text: string) =>
        text.split('\n').filter((line) => line.startsWith('switchyard_gateway_circuit_state{')).length;
      expect(scrapes.map(series)).toEqual(Array.from({ length: 12 }, () => 9));
    } finally {
      await server.close(0);
      await gateway.switchyard.close();
    }
  });

  it('metrics label the canonical model id; names the registry does not know share one `unknown` series', async () => {
    harness.emulator.enqueue(hello());
    expect((await post('/v1/chat/completions', chatBody())).status).toBe(200);
    for (const name of ['made-up-1', 'made-up-2'])
      expect((await post('/v1/chat/completions', chatBody({ model: name }))).status).toBe(404);
    // `openai:` + any name resolves (to the upstream, which answers); it is counted under the provider.
    for (const name of ['openai:made-up-3', 'openai:made-up-4']) {
      harness.emulator.enqueue(hello());
      await post('/v1/chat/completions', chatBody({ model: name }));
    }
    const metrics = await (await scrapeMetrics()).text();
    expect(metrics).toMatch(
      /requests_total\{protocol="openai-chat",model="openai:gpt-5-mini",status="200",route="generate"\} \d/,
    );
    expect(metrics).toMatch(
      /requests_total\{protocol="openai-chat",model="unknown",status="404",route="generate"\} [2-9]/,
    );
    expect(metrics).toMatch(
      /requests_total\{protocol="openai-chat",model="openai:other",status="\d+",route="generate"\} [2-9]/,
    );
    expect(metrics).not.toContain('made-up');
  });

  it('counters are exact across scrapes: each request counted once, tokens summed, in-flight back to 0', async () => {
    const scrape = async () => await (await scrapeMetrics()).text();
    const value = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    const requests =
      /requests_total\{protocol="openai-chat",model="openai:gpt-5-mini",status="200",route="generate"\} (\d+)/;
    const output = /tokens_total\{protocol="openai-chat",model="openai:gpt-5-mini",kind="output"\} (\d+)/;
    const before = await scrape();
    for (let index = 0; index < 3; index++) {
      harness.emulator.enqueue(hello());
      expect((await post('/v1/chat/completions', chatBody())).status).toBe(200);
    }
    const middle = await scrape();
    expect(value(middle, requests) - value(before, requests)).toBe(3);
    expect(value(middle, output) - value(before, output)).toBeGreaterThan(0);
    // A scrape with no request between adds nothing (no sum is flushed twice).
    expect(value(await scrape(), requests)).toBe(value(middle, requests));
    expect(middle).toMatch(/in_flight_requests\{protocol="openai-chat"\} 0\b/);
  });

  it('a client that leaves a non-streamed request while the upstream thinks cancels the upstream call', async () => {
    harness.emulator.enqueue({ ...hello('too late'), fault: { delayHeadersMs: 30_000 } });
    const before = harness.emulator.requests.length;
    const served = harness.nextServed();
    const controller = new AbortController();
    const leaving = fetch(`${harness.server.url}/v1/chat/completions`, {
      method: 'POST',
      body: chatBody(),
      headers: { 'content-type': 'application/json', authorization: 'Bearer ops-key-2' },
      signal: controller.signal,
    }).catch((error: unknown) => error);
    // Leave once the upstream has the request (its headers are held back for 30 s).
    while (harness.emulator.requests.length === before)
      await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await leaving).toBeInstanceOf(Error);
    expect(await served).toMatchObject({ complete: false });
    await expect.poll(() => harness.accessLog.at(-1)?.status).toBe(499);
  });

  it.each([
    [
      'an Anthropic',
      '/v1/messages',
      { model: 'up-anthropic', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
    ],
    [
      'a Gemini',
      '/v1beta/models/up-anthropic:streamGenerateContent?alt=sse',
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
    ],
  ])(
    '%s client: an upstream that opens empty part after empty part has its headers sent past 1,024 held events, not held without bound waiting for content',
    async (_, path, request) => {
      const block = (index: number) => [
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
      ];
      const start = {
        type: 'message_start',
        message: {
          id: 'msg_flood',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      };
      const events = [
        { event: 'message_start', data: start },
        ...Array.from({ length: 2000 }, (_, index) => block(index)).flat(),
      ];
      // Every empty block arrives, then nothing (no content ever): the client must have its headers.
      harness.emulator.enqueue({ type: 'sse', events, fault: { stallAfterEvents: events.length } });
      const logged = harness.accessLog.length;
      const response = await post(path, JSON.stringify(request), { 'anthropic-version': '2023-06-01' });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      // Anthropic frames every empty block (they arrive); Gemini has no frame for one (headers only).
      if (path === '/v1/messages')
        expect(new TextDecoder().decode((await reader.read()).value)).toContain('content_block_start');
      await reader.cancel();
      await expect.poll(() => harness.accessLog.slice(logged).map((line) => line.status)).toEqual([499]);
    },
  );

  it('a client that leaves with requests pipelined behind another cancels the upstream call, and the queued ones never start one: each logged 499 (Node never closes a queued response)', async () => {
    harness.emulator.enqueue({ ...hello('first, too late'), fault: { delayHeadersMs: 30_000 } });
    const before = harness.emulator.requests.length;
    const logged = harness.accessLog.length;
    const body = chatBody();
    const request =
      `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
      `authorization: Bearer ops-key-2\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const socket = connect(Number(new URL(harness.server.url).port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(request.repeat(10));
    // The upstream holds the first request; the nine queued behind it wait for their turn.
    while (harness.emulator.requests.length < before + 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(harness.emulator.requests.length - before).toBe(1);
    socket.destroy();
    await expect.poll(() => harness.accessLog.length - logged).toBe(10);
    expect(harness.accessLog.slice(logged).map((line) => line.status)).toEqual(Array(10).fill(499));
    expect(harness.emulator.requests.length - before).toBe(1);
    const metrics = await (await scrapeMetrics()).text();
    expect(metrics).toMatch(/in_flight_requests\{protocol="openai-chat"\} 0\b/);
  });

  it.each([
    ['/v1/chat/completions', 'served from Node'],
    ['/v1/chat/completions?trace=1', 'routed by the Hono app, read from Node’s request'],
  ])(
    'a client that leaves in the middle of its request body to %s (%s) is logged 499 cancelled, not a gateway error',
    async (path) => {
      const { port } = new URL(harness.server.url);
      const socket = connect(Number(port), '127.0.0.1');
      const before = harness.accessLog.length;
      await new Promise((resolve) => socket.once('connect', resolve));
      // Declares 1,000 bytes, sends 12, then goes.
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ops-key-2\r\nx-goog-api-key: ops-key-2\r\ncontent-length: 1000\r\n\r\n{"model": "u`,
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.destroy();
      await expect.poll(() => harness.accessLog.length).toBe(before + 1);
      expect(harness.accessLog.at(-1)).toMatchObject({ status: 499, errorClass: 'cancelled' });
      // The gateway is still serving.
      harness.emulator.enqueue(hello());
      expect((await post('/v1/chat/completions', chatBody())).status).toBe(200);
    },
  );

  it('served by the Hono app from a web Request (no Node request: another runtime), a body that fails because its client left is logged 499 cancelled', async () => {
    const before = harness.accessLog.length;
    const controller = new AbortController();
    // The runtime aborts the request's signal when the client goes, and its body fails.
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        stream.enqueue(new TextEncoder().encode('{"model": "u'));
      },
      pull(stream) {
        controller.abort();
        stream.error(new Error('connection reset'));
      },
    });
    await harness.app.request('/v1/chat/completions', {
      method: 'POST',
      body,
      duplex: 'half',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', authorization: 'Bearer ops-key-2' },
    } as RequestInit);
    await expect.poll(() => harness.accessLog.length).toBe(before + 1);
    expect(harness.accessLog.at(-1)).toMatchObject({ status: 499, errorClass: 'cancelled' });
  });

  it('x-request-id is echoed (or generated), x-switchyard-overhead-ms is on every non-streamed reply, the access log has no content', async () => {
    harness.emulator.enqueue(hello('secret prompt answer'));
    const response = await post('/v1/chat/completions', chatBody(), { 'x-request-id': 'trace-123' });
    expect(response.headers.get('x-request-id')).toBe('trace-123');
    expect(Number(response.headers.get('x-switchyard-overhead-ms'))).toBeGreaterThanOrEqual(0);
    const line = harness.accessLog.at(-1)!;
    expect(line).toMatchObject({
      requestId: 'trace-123',
      key: 'ops',
      model: 'up-chat',
      status: 200,
      stream: false,
    });
    expect(JSON.stringify(line)).not.toContain('secret prompt answer');
    const generated = await fetch(`${harness.server.url}/healthz`);
    expect(generated.headers.get('x-request-id')).toMatch(/^\w{26}$/);
  });
});
