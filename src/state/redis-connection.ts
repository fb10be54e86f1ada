/**
 * The Redis store's connections: how they are made (`connect`, `subscriberOf`), a transaction's
 * replies (`executed`), and the watch that replaces a connection gone silent (`ConnectionWatch`).
 *
 * A connection can stay open and `ready` while nothing comes back on it: a partition, a host that
 * died behind a moved IP or DNS name, a failover that left the old socket up. ioredis then times
 * out each command (its `commandTimeout`, or the store's own deadline) but keeps the socket, and
 * every command sent stays in its queue until a reply or a close that never comes — until the
 * kernel gives up on the socket, about 15 minutes with data in flight. The watch closes such a
 * connection and opens another, which reaches Redis again wherever it now answers.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { withTimeout } from './outage.ts';

type Client = Redis | Cluster;

/**
 * A transaction's (or pipeline's) replies, or a throw of the first error: Redis's own (`OOM`,
 * `WRONGTYPE`) rather than the `EXECABORT` that wraps a command it refused when queued.
 */
export async function executed(transaction: {
  exec(): Promise<Array<[Error | null, unknown]> | null>;
}): Promise<unknown[]> {
  let results: Array<[Error | null, unknown]> | null;
  try {
    results = await transaction.exec();
  } catch (error) {
    throw (error as { previousErrors?: Error[] }).previousErrors?.[0] ?? error;
  }
  if (results === null) throw new Error('Redis discarded the transaction');
  for (const [error] of results) if (error !== null) throw error;
  return results.map(([, reply]) => reply);
}

/** Most commands left waiting on a connection while it does not answer (see `ConnectionWatch.run`). */
export const maxQueued = 1000;

/** The commands sent on a connection and not answered yet (every node's, for a Cluster). */
function queued(connection: Client): number {
  if (connection instanceof Redis) return connection.commandQueue.length;
  let count = 0;
  for (const node of connection.nodes('all')) count += node.commandQueue.length;
  return count;
}

/** The longest silence window, in `silentMs`: 8 (16 s by default; see `ConnectionWatch`). */
export const maxWindows = 8;

/** True for an error that is Redis's reply (the connection answered). */
const isReply = (error: unknown) => error instanceof Error && error.name === 'ReplyError';

/**
 * Watches one connection's replies (see the module comment). A command that times out starts a
 * watch of `silentMs`: a reply to any command on the connection ends it (a slow Redis still
 * answers, late), and a watch that runs out closes the connection and reconnects
 * (`disconnect(true)`: ioredis fails every command it still held, and its queue is empty again).
 * Each recycle doubles the window (up to {@link maxWindows} × `silentMs`) until a reply comes
 * within its command's timeout: a Redis that answers later than the window is recycled once or a
 * few times, not every window.
 * A connection that sends no commands of its own (the subscriber), or none for a while (the stored
 * values'), is asked with a PING (`pingEvery`), so its silence is found before a request meets it.
 */
export class ConnectionWatch {
  /** Connections closed for silence so far. */
  recycles = 0;
  private timer: NodeJS.Timeout | undefined;
  private pinger: NodeJS.Timeout | undefined;
  /** When a command last timed out (ms since epoch). */
  private timedOutAt = 0;
  /** A PING sent and not answered or failed yet (never more than one). */
  private pinging = false;

  private readonly connection: Client;
  private readonly silentMs: number;
  private readonly onRecycle: (() => void) | undefined;
  /** The silence that recycles now: `silentMs`, doubled at each recycle (see `timedOut`). */
  private windowMs: number;

  /** `onRecycle` is told after each recycle (for a Cluster the store reconnects its subscriber too). */
  constructor(connection: Client, silentMs: number, onRecycle?: () => void) {
    this.connection = connection;
    this.silentMs = silentMs;
    this.windowMs = silentMs;
    this.onRecycle = onRecycle;
  }

  /**
   * `operation()` (commands on this connection), failed after `ms` ("Command timed out"). While a
   * command timed out unanswered, one that would queue behind {@link maxQueued} others is not sent:
   * it fails at once (a silent connection holds every command sent, with its arguments, until it is
   * replaced).
   */
  run<Value>(operation: () => Promise<Value>, ms: number): Promise<Value> {
    if (this.timer !== undefined && queued(this.connection) >= maxQueued)
      return Promise.reject(
        new Error(`Redis is not answering: ${maxQueued} commands wait on the connection`),
      );
    const promise = operation();
    let late = false;
    promise.then(
      () => this.answered(!late),
      (error: unknown) => {
        if (isReply(error)) this.answered(!late);
      },
    );
    return withTimeout(promise, ms).catch((error: unknown) => {
      if (error instanceof Error && error.message === 'Command timed out') {
        late = true;
        this.timedOutAt = Date.now();
        this.timedOut();
      }
      throw error;
    });
  }

  /**
   * A PING every `intervalMs` while the connection is up, failed after `timeoutMs` as any command
   * (`run`): at most one in flight (one that is never answered waits until the connection is
   * replaced), and with `idleOnly` none while commands wait on the connection (their own timeouts
   * watch it then). In subscriber mode too: Redis answers PING there.
   */
  pingEvery(intervalMs: number, timeoutMs: number, idleOnly = false): void {
    this.pinger = setInterval(() => {
      if (this.pinging || this.connection.status !== 'ready') return;
      if (idleOnly && queued(this.connection) > 0) return;
      this.pinging = true;
      this.run(() => this.connection.ping().finally(() => (this.pinging = false)), timeoutMs).catch(() => {});
    }, intervalMs);
    this.pinger.unref();
  }

  /** True when a command on the connection timed out within the last `ms`. */
  timedOutWithin(ms: number): boolean {
    return Date.now() - this.timedOutAt < ms;
  }

  /** True while a command timed out and nothing came back on the connection since. */
  get silent(): boolean {
    return this.timer !== undefined;
  }

  /** Stops watching (the store closes). */
  close(): void {
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    this.timer = undefined;
  }

  /** A reply came (`inTime`: before its command's timeout, and the window is the first again). */
  private answered(inTime: boolean): void {
    if (inTime) this.windowMs = this.silentMs;
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private timedOut(): void {
    if (this.timer !== undefined || this.connection.status !== 'ready') return;
    const timer = setTimeout(
      // After the loop has read its sockets, as `withTimeout`: a reply already waiting while this
      // process was busy past `silentMs` is no silence of the connection.
      () =>
        setImmediate(() => {
          if (this.timer !== timer) return;
          this.timer = undefined;
          if (this.connection.status !== 'ready') return;
          this.recycles += 1;
          // Twice as long next time, until a reply comes in time: a Redis that answers, only later
          // than the window, keeps its next connection (its late replies end the watches).
          this.windowMs = Math.min(this.windowMs * 2, this.silentMs * maxWindows);
          this.connection.disconnect(true);
          this.onRecycle?.();
        }),
      this.windowMs,
    );
    this.timer = timer;
    this.timer.unref();
  }
}

/**
 * How often a connection that sends no commands of its own, or none at the moment, is asked
 * (`ConnectionWatch.pingEvery`), ms: its silence is found within this, its command timeout and the
 * silence window.
 */
export const pingMs = 1000;

/**
 * The last error `connections` met, cleared when one is up (why commands fail at once), the URL's
 * password replaced by `***`. Listening keeps the process alive too: errors surface on the commands
 * that meet them, and the last one in the outage's WARN (a refused password shows there only).
 */
export function lastErrorOf(connections: Client[], url: string): () => string | undefined {
  const password = decodeURIComponent(new URL(url).password);
  let last: string | undefined;
  for (const connection of connections) {
    connection.on('error', (error: Error) => {
      const message = error.message.replace(/^Ready check failed: /, '').slice(0, 300);
      last = password === '' ? message : message.replaceAll(password, '***');
    });
    connection.on('ready', () => (last = undefined));
  }
  return () => last;
}

/** A second connection, for SUBSCRIBE only (see where the store makes it). */
export function subscriberOf(client: Client): Client {
  const options = { enableOfflineQueue: true, maxRetriesPerRequest: null, autoResubscribe: false };
  // Cluster#duplicate takes (startup nodes, cluster options): the node options go in `redisOptions`.
  if (client instanceof Cluster)
    return client.duplicate([], { enableOfflineQueue: true, redisOptions: options });
  return client.duplicate(options);
}

/** ioredis's own command timeout, at the least (see `connect`). */
const backstopMs = 10_000;

/** A connection of the store (it connects at once; reconnects for ever with a capped backoff). */
export function connect(url: string, cluster: boolean, timeoutMs: number): Client {
  const common: RedisOptions = {
    // The timeout is the store's own (`withTimeout`): ioredis's `commandTimeout` fails a command
    // whose reply is already waiting when the event loop was busy past the timeout; this one is a
    // backstop only, past a stored value's timeout and the silence that then recycles the
    // connection (2 s each at least): at 2.5 s, a process busy for 3 s failed a read whose reply
    // was waiting, and `ConnectionWatch` took ioredis's timeout for silence and recycled a healthy
    // connection.
    commandTimeout: Math.max(backstopMs, timeoutMs * 20),
    // A dead Redis answers at once: nothing queues behind a reconnect.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // No auto-pipelining: with it (ioredis 6.0.0), a script command that met a Redis going away
    // rejected a promise nobody held (MaxRetriesPerRequestError as an unhandled rejection, seen in
    // src/state/redis.test.ts). Each request sends one script anyway.
    enableAutoPipelining: false,
    connectTimeout: Math.max(1000, timeoutMs * 20),
    // A connection closed for silence (`ConnectionWatch`) is destroyed when its FIN is not answered
    // this soon (a dead peer never answers it; ioredis waits 2 s by default).
    disconnectTimeout: 100,
    // Reconnect for ever: 50 ms after the first failed attempt, 50 ms longer after each, at most a second apart.
    retryStrategy: (times) => Math.min(50 * times, 1000),
  };
  if (!cluster) return new Redis(url, common);
  const parsed = new URL(url);
  return new Cluster([{ host: parsed.hostname, port: Number(parsed.port || 6379) }], {
    redisOptions: common,
    enableOfflineQueue: false,
    enableAutoPipelining: false,
    clusterRetryStrategy: (times) => Math.min(50 * times, 1000),
  });
}
