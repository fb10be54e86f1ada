/**
 * A loopback TCP proxy in front of a test Redis, to make it sick the ways a network does:
 * `strand()` leaves the connections open now silent for ever (bytes are taken and never answered,
 * as behind a partition or a host gone behind a moved address) while new connections reach Redis;
 * `latencyMs` delays every reply. `accepted` counts the connections made through it. `strand('subscribers')`
 * strands only the connections that sent a `SUBSCRIBE`; `blackhole()` strands new connections too
 * (a Redis host gone silent for good).
 */
import { createServer, type Server, Socket } from 'node:net';

/** A running proxy (see the module comment). */
export interface RedisProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Every reply is sent this much later (0: at once). */
  latencyMs: number;
  /** The connections open now (or only those that subscribed) go silent for ever; new ones are forwarded. */
  strand(only?: 'subscribers'): void;
  /** Every connection, open now or made later, goes silent for ever. */
  blackhole(): void;
  close(): Promise<void>;
}

/** Starts a proxy to `targetPort` on a free loopback port. */
export async function startRedisProxy(targetPort: number): Promise<RedisProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket; stranded: boolean; subscriber: boolean }>();
  let accepted = 0;
  let silent = false;
  const timers = new Set<NodeJS.Timeout>();
  const proxy = {
    url: '',
    latencyMs: 0,
    get accepted() {
      return accepted;
    },
    strand(only?: 'subscribers') {
      for (const pair of pairs) if (only === undefined || pair.subscriber) pair.stranded = true;
    },
    blackhole() {
      silent = true;
      for (const pair of pairs) pair.stranded = true;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer((client) => {
    accepted += 1;
    const upstream = new Socket();
    const pair = { client, upstream, stranded: silent, subscriber: false };
    pairs.add(pair);
    upstream.connect(targetPort, '127.0.0.1');
    client.on('data', (data) => {
      if (!pair.subscriber && /\$9\r\nsubscribe\r\n/i.test(data.toString('latin1'))) pair.subscriber = true;
      if (!pair.stranded) upstream.write(data);
    });
    upstream.on('data', (data) => {
      if (pair.stranded) return;
      if (proxy.latencyMs === 0) return void client.write(data);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!client.destroyed) client.write(data);
      }, proxy.latencyMs);
      timers.add(timer);
    });
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  proxy.url = `redis://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  return proxy;
}
