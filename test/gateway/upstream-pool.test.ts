/**
 * The gateway's upstream pool: every call to a provider holds one of its pooled connections for as
 * long as it runs (a stream for its whole length), and calls past the pool's size wait for one. The
 * front door a gateway creates gives each adapter `gateway.upstream_connections` (default 1,024),
 * not the library's 64: a gateway's concurrent calls are all its clients'. An adapter's own
 * `options.maxConnections` still wins.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { createGateway, defaultUpstreamConnections } from '../../src/gateway/server.ts';

const reply = JSON.stringify({
  id: 'chatcmpl-pool',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4.1-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'held' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});

/** An OpenAI Chat upstream that holds every reply until `release()`: `open()` is how many wait. */
async function holdingUpstream() {
  const held: ServerResponse[] = [];
  let received = 0;
  const server = createServer((incoming, outgoing) => {
    received++;
    incoming.resume();
    incoming.on('end', () => held.push(outgoing));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: () => held.length,
    received: () => received,
    release() {
      for (const outgoing of held.splice(0)) {
        outgoing.writeHead(200, { 'content-type': 'application/json' });
        outgoing.end(reply);
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function start(gateway: Record<string, unknown>, adapterOptions?: Record<string, unknown>) {
  const upstream = await holdingUpstream();
  closers.push(() => upstream.close());
  const server = await createGateway({
    logger: silentLogger,
    config: {
      builtins: false,
      adapters: {
        openai: {
          type: 'openai',
          base_url: `${upstream.url}/v1`,
          api_key: 'upstream-key',
          max_retries: 0,
          ...(adapterOptions === undefined ? {} : { options: adapterOptions }),
        },
      },
      models: { 'openai:gpt-4.1-mini': { aliases: ['pooled'] } },
      gateway: { access_log: false, ...gateway },
    },
  }).listen({ host: '127.0.0.1', port: 0 });
  closers.push(() => server.close(0));
  const call = async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'pooled', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    return { status: response.status, body: await response.text() };
  };
  return { upstream, call, url: server.url };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the gateway’s upstream pool', () => {
  it('100 calls held open by the upstream are all in flight upstream at once (the library’s 64 would queue 36)', async () => {
    expect(defaultUpstreamConnections).toBeGreaterThanOrEqual(1024);
    const { upstream, call } = await start({});
    const calls = Array.from({ length: 100 }, call);
    await vi.waitFor(() => expect(upstream.open()).toBe(100), { timeout: 10_000 });
    upstream.release();
    const answers = await Promise.all(calls);
    expect(answers.every(({ status, body }) => status === 200 && body.includes('held'))).toBe(true);
  });

  it('`upstream_connections` bounds the calls in flight to one provider; the rest wait and are served', async () => {
    const { upstream, call } = await start({ upstream_connections: 2 });
    const calls = Array.from({ length: 5 }, call);
    await vi.waitFor(() => expect(upstream.open()).toBe(2));
    await pause(200);
    expect(upstream.open()).toBe(2);
    // Each release lets the waiting calls take the freed connections.
    for (let served = 0; served < 5; served += 2) {
      await vi.waitFor(() => expect(upstream.open()).toBe(Math.min(2, 5 - served)));
      upstream.release();
    }
    const answers = await Promise.all(calls);
    expect(answers.map(({ status }) => status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('an adapter’s own `options.maxConnections` wins over `upstream_connections`', async () => {
    const { upstream, call } = await start({ upstream_connections: 2 }, { maxConnections: 3 });
    const calls = Array.from({ length: 5 }, call);
    await vi.waitFor(() => expect(upstream.open()).toBe(3));
    await pause(200);
    expect(upstream.open()).toBe(3);
    upstream.release();
    await vi.waitFor(() => expect(upstream.open()).toBe(2));
    upstream.release();
    expect((await Promise.all(calls)).every(({ status }) => status === 200)).toBe(true);
  });

  it('a call waiting for a connection whose client leaves never reaches the upstream', async () => {
    const { upstream, call, url } = await start({ upstream_connections: 1 });
    const first = call();
    await vi.waitFor(() => expect(upstream.open()).toBe(1));
    const leaving = new AbortController();
    const waiting = fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'pooled', messages: [{ role: 'user', content: 'Hi' }] }),
      signal: leaving.signal,
    }).catch(() => undefined);
    await pause(100);
    leaving.abort();
    await waiting;
    await pause(100);
    upstream.release();
    expect((await first).status).toBe(200);
    // The queued call was let go with its client: the upstream saw one request in all.
    await pause(200);
    expect(upstream.received()).toBe(1);
  });

  it('`upstream_connections` must be a whole number from 1', () => {
    for (const value of [0, 1.5, -1, 'many'] as unknown[])
      expect(() =>
        createGateway({
          logger: silentLogger,
          config: { gateway: { upstream_connections: value as number } },
        }),
      ).toThrow(/upstream_connections/);
  });
});
