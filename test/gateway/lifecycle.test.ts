/**
 * The native WebSocket (requests and cancel by id), graceful shutdown (grace, then cancel upstream),
 * and the app mounted in another Hono app.
 */
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createGateway } from 'switchyard-ai/gateway';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { createEmulatedGateway } from '../support/emulated.ts';
import { chatStreamText, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const transcript = [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }];

it('the WebSocket streams canonical events by request id, and a cancel message aborts the upstream call', async () => {
  const socket = new WebSocket(`${harness.server.url.replace('http', 'ws')}/switchyard/v1/ws`);
  const messages: Array<{ type: string; id: string; event?: { type: string } }> = [];
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as (typeof messages)[number]);
    for (const wake of waiters.splice(0)) wake();
  });
  const until = async (test: () => boolean) => {
    while (!test()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  await new Promise((resolve) => socket.once('open', resolve));

  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Over the socket.' }] });
  socket.send(JSON.stringify({ type: 'request', id: 'a', request: { model: 'up-chat', transcript } }));
  await until(() => messages.some((message) => message.id === 'a' && message.type === 'done'));
  const events = messages
    .filter((message) => message.id === 'a' && message.type === 'event')
    .map((message) => message.event!.type);
  expect(events[0]).toBe('message-start');
  expect(events.at(-1)).toBe('finish');

  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'z'.repeat(200) }],
    fault: { stallAfterEvents: 4 },
  });
  const served = harness.nextServed();
  socket.send(JSON.stringify({ type: 'request', id: 'b', request: { model: 'up-chat', transcript } }));
  await until(() => messages.some((message) => message.id === 'b' && message.event?.type === 'text-delta'));
  socket.send(JSON.stringify({ type: 'cancel', id: 'b' }));
  expect(await served).toMatchObject({ complete: false });
  socket.close();
});

it('graceful shutdown: new requests get 503, in-flight streams get the grace period, then their upstream calls are cancelled', async () => {
  const own = await startGatewayHarness();
  own.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'w'.repeat(200) }],
    fault: { stallAfterEvents: 4 },
  });
  const served = own.nextServed();
  const response = await fetch(`${own.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up-chat', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  const reader = response.body!.getReader();
  await reader.read();
  const closing = own.server.close(50);
  // A request that still arrives once shutdown began is refused in its protocol's shape.
  const late = await own.app.request('/v1/messages', { method: 'POST', body: '{}' });
  expect(late.status).toBe(503);
  expect(((await late.json()) as { type: string }).type).toBe('error');
  expect(await served).toMatchObject({ complete: false });
  // The stream cut at the end of the grace period ends with Chat's in-band error, never `[DONE]`.
  let rest = '';
  const decoder = new TextDecoder();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
    rest += decoder.decode(chunk.value, { stream: true });
  expect(rest).toContain('"type":"server_error"');
  expect(rest).toContain('the gateway shut down before this reply finished');
  expect(rest).not.toContain('[DONE]');
  await closing;
  await own.close();
});

it('graceful shutdown: a non-streamed request still running when the grace period ends is a 503 with retry-after, not a 499', async () => {
  const own = await startGatewayHarness();
  own.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'Hello.' }],
    fault: { stallAfterEvents: 0 },
  });
  const answer = fetch(`${own.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] }),
  });
  while (own.emulator.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const closing = own.server.close(50);
  const response = await answer;
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(((await response.json()) as { error: { type: string } }).error.type).toBe('server_error');
  await closing;
  await own.close();
});

/** A gateway to mount in another app: `mounted-chat` on the emulator's OpenAI Chat upstream. */
function mountableGateway(gateway: Record<string, unknown> = {}) {
  return createEmulatedGateway(harness.emulator.url, {
    adapters: { openai: 'openai' },
    apiKey: 'upstream-key',
    config: {
      models: { 'openai:gpt-5-mini': { aliases: ['mounted-chat'] } },
      gateway,
    },
  });
}

it('mounted under another Hono app with a middleware, a streamed reply arrives whole, with the middleware’s header', async () => {
  const gateway = mountableGateway();
  const parent = new Hono();
  parent.use('*', async (c, next) => {
    await next();
    c.header('x-parent', 'yes');
  });
  parent.route('/', gateway.app);
  const server = serve({ fetch: parent.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const words = 'one two three four five six seven';
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: words }],
      usage: { input: 3, output: 7 },
      fault: { dripMs: 5 },
    });
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'mounted-chat',
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    });
    expect(response.headers.get('x-parent')).toBe('yes');
    const body = await response.text();
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(chatStreamText(body)).toBe(words);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await gateway.switchyard.close();
  }
});

it('mounted behind a handler that waits, then passes on a request of its own: the gateway reads that request (its key and id)', async () => {
  const digest = `sha256:${createHash('sha256').update('parent-key-1').digest('hex')}`;
  const gateway = mountableGateway({ keys: [{ name: 'parent', key: digest }] });
  const parent = new Hono();
  parent.all('*', async (c) => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const headers = new Headers(c.req.raw.headers);
    headers.set('authorization', 'Bearer parent-key-1');
    headers.set('x-request-id', 'from-parent');
    const body = await c.req.raw.text();
    return gateway.app.fetch(new Request(c.req.raw.url, { method: 'POST', headers, body }), c.env);
  });
  const server = serve({ fetch: parent.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'through the parent' }],
      usage: { input: 3, output: 3 },
    });
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mounted-chat', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('from-parent');
    const reply = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(reply.choices[0]!.message.content).toBe('through the parent');
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await gateway.switchyard.close();
  }
});

it('an error no part of the gateway classified is a 500 that tells the client nothing, and a WARN for the operator', async () => {
  const logger = createMemoryLogger();
  const front = harness.switchyard;
  // Key-shaped (so redaction must catch it), built here so that no key-shaped text is committed.
  const keyShaped = ['sk', 'abcdefghijklmnopqrstuvwxyz012345'].join('-');
  const broken = {
    ...front,
    complete: () => Promise.reject(new TypeError(`boom: key ${keyShaped}`)),
  };
  const gateway = createGateway({ switchyard: broken, logger, accessLog: () => {} });
  const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
  try {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-unexpected' },
      body: JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toContain('internal gateway error');
    expect(text).not.toContain('boom');
    const warned = logger.entries.find((entry) => entry.message === 'gateway: unexpected error');
    expect(warned?.fields).toMatchObject({ requestId: 'req-unexpected', error: 'TypeError' });
    expect(String(warned?.fields.message)).toContain('boom');
    expect(String(warned?.fields.message)).not.toContain(keyShaped);
  } finally {
    await server.close();
  }
});

it('a provider the gateway has no credentials for: the client is told generically, the operator a WARN naming the provider and not_configured', async () => {
  const logger = createMemoryLogger();
  const lines: Array<Record<string, unknown>> = [];
  const gateway = createGateway({
    logger,
    env: {},
    accessLog: (line) => lines.push(line),
    config: {
      builtins: false,
      adapters: { keyless: { type: 'openai', base_url: 'http://127.0.0.1:9/v1', max_retries: 0 } },
      models: { 'keyless:gpt-4.1-mini': { aliases: ['keyless-chat'] } },
    },
  });
  const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
  try {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-keyless' },
      body: JSON.stringify({ model: 'keyless-chat', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(502);
    expect(await response.text()).toContain("refused the gateway's credentials");
    expect(lines.at(-1)).toMatchObject({ requestId: 'req-keyless', errorClass: 'server_error' });
    const warned = logger.entries.find((entry) =>
      entry.message.startsWith('gateway: a provider is not configured'),
    );
    expect(warned?.fields).toEqual({ requestId: 'req-keyless', provider: 'keyless', code: 'not_configured' });
    expect(warned?.message).toContain('OPENAI_API_KEY');
  } finally {
    await server.close();
  }
});

it('/metrics is still served while the gateway shuts down (the drain is what an operator watches); new requests get 503', async () => {
  const gateway = createGateway({ accessLog: () => {}, config: { builtins: false } });
  const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
  const closing = server.close(2000);
  try {
    expect((await gateway.app.request('/metrics')).status).toBe(200);
    expect((await gateway.app.request('/v1/models')).status).toBe(503);
  } finally {
    await closing;
    await gateway.switchyard.close();
  }
});
