/**
 * The circuit breaker's store in Redis: one hash of circuits, one Lua script per transition (the
 * rules of `routing/transitions.ts`), a pub/sub channel announcing every change, and a local copy
 * refreshed from both (and re-read in full every `refreshMs`), so reads never wait on Redis. While
 * Redis is unreachable, transitions apply to a local in-memory store (the circuit then holds for
 * this instance only) and the outage is reported once.
 */
import { Cluster, type Redis } from 'ioredis';
import {
  type AvailabilityOperation,
  type AvailabilityRecord,
  type AvailabilityStore,
  createMemoryAvailabilityStore,
  type TransitionOutcome,
} from '../routing/availability.ts';
import type { OutageTracker } from './outage.ts';
import { type ConnectionWatch, pingMs } from './redis-connection.ts';
import { circuitScript } from './scripts.ts';
import { parseJson } from '../core/json-text.ts';

type Client = (Redis | Cluster) & {
  syCircuit?(hash: string, field: string, channel: string, operation: string): Promise<string>;
};

/** The Redis-backed availability store (see the module comment). */
export class RedisAvailabilityStore implements AvailabilityStore {
  private readonly client: Client;
  private readonly subscriber: Redis | Cluster;
  private readonly hash: string;
  private readonly channel: string;
  private readonly outage: OutageTracker;
  private readonly timeoutMs: number;
  private readonly watch: ConnectionWatch;
  private readonly subscriberWatch: ConnectionWatch;
  private readonly records = new Map<string, AvailabilityRecord>();
  private readonly local = createMemoryAvailabilityStore();
  private readonly listeners = new Set<(key: string) => void>();
  private readonly timer: NodeJS.Timeout;
  private refreshing = false;
  /** Settles once the first subscription is in place (or failed). */
  readonly subscribed: Promise<void>;

  constructor(options: {
    client: Redis | Cluster;
    subscriber: Redis | Cluster;
    hash: string;
    channel: string;
    refreshMs: number;
    outage: OutageTracker;
    /** A command slower than this fails (see `withTimeout`). */
    timeoutMs: number;
    /** Times the client's commands, and replaces the client when it goes silent. */
    watch: ConnectionWatch;
    /**
     * The subscriber's: it is asked with a PING every `pingMs` and replaced when silent (a silent
     * subscriber hears no circuit change, and this instance would learn them only from the re-read).
     */
    subscriberWatch: ConnectionWatch;
  }) {
    this.timeoutMs = options.timeoutMs;
    this.watch = options.watch;
    this.subscriberWatch = options.subscriberWatch;
    this.client = options.client;
    this.subscriber = options.subscriber;
    this.hash = options.hash;
    this.channel = options.channel;
    this.outage = options.outage;
    this.client.defineCommand('syCircuit', { numberOfKeys: 1, lua: circuitScript });
    this.subscriber.on('error', () => {});
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.onMessage(message);
    });
    this.subscribed = this.subscribe();
    // Not for a Cluster: its SUBSCRIBE goes on a connection of ioredis's own, a PING to another node.
    if (!(this.subscriber instanceof Cluster)) this.subscriberWatch.pingEvery(pingMs, this.timeoutMs);
    // Subscribed again after each reconnect (the subscriber is created without autoResubscribe).
    let connections = 0;
    this.subscriber.on('ready', () => {
      if (++connections > 1) void this.subscribe();
    });
    this.local.onOpen!((key) => this.notify(key));
    this.timer = setInterval(() => void this.refresh(), options.refreshMs);
    this.timer.unref();
    void this.refresh();
  }

  /** The local copy (≤ `refreshMs` old, fresher through pub/sub); the local store's during an outage. */
  get(key: string): AvailabilityRecord | undefined {
    return this.outage.lastFailed
      ? (this.local.get(key) as AvailabilityRecord | undefined)
      : this.records.get(key);
  }

  transition(key: string, operation: AvailabilityOperation): Promise<TransitionOutcome> {
    return this.watch
      .run(
        () => this.client.syCircuit!(this.hash, key, this.channel, JSON.stringify(operation)),
        this.timeoutMs,
      )
      .then(
        (reply) => {
          this.outage.succeeded();
          const { outcome, record } = parseJson(reply) as {
            outcome: TransitionOutcome;
            record: AvailabilityRecord;
          };
          this.update(key, record);
          return outcome;
        },
        (error: unknown) => {
          // The circuit breaker always degrades to local state: refusing calls because Redis is down
          // would turn a Redis outage into a provider outage (limits follow `on_state_failure`).
          this.outage.failed('availability', error, 'open');
          return this.local.transition(key, operation);
        },
      );
  }

  onOpen(listener: (key: string) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Subscribes to the circuit channel; a failure is met again at the next reconnect. */
  private subscribe(): Promise<void> {
    return this.subscriber.subscribe(this.channel).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Re-reads every circuit (also the health check that ends an outage). */
  async refresh(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      const all = await this.watch.run(() => this.client.hgetall(this.hash), this.timeoutMs);
      this.outage.succeeded();
      for (const key of this.records.keys()) if (!(key in all)) this.records.delete(key);
      for (const [key, value] of Object.entries(all)) this.update(key, parseRecord(value));
    } catch {
      // Reported by the operations that need Redis; the next tick tries again.
    } finally {
      this.refreshing = false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.subscriberWatch.close();
    this.subscriber.disconnect();
  }

  private onMessage(message: string): void {
    const split = message.indexOf('\n');
    if (split <= 0) return;
    this.update(message.slice(0, split), parseRecord(message.slice(split + 1)));
  }

  private update(key: string, record: AvailabilityRecord | undefined): void {
    if (record === undefined) return;
    const before = this.records.get(key);
    this.records.set(key, record);
    if (record.state === 'open' && before?.state !== 'open') this.notify(key);
  }

  private notify(key: string): void {
    for (const listener of this.listeners) {
      try {
        listener(key);
      } catch {
        // A listener never breaks the store.
      }
    }
  }
}

function parseRecord(text: string): AvailabilityRecord | undefined {
  try {
    const value = parseJson(text) as AvailabilityRecord;
    return typeof value === 'object' && value !== null && typeof value.state === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
