/**
 * Admissions the gateway gave up on (the admit script did not answer within `state_timeout_ms`),
 * withdrawn from Redis once it answers again. A stalled Redis (a fork, `CLIENT PAUSE`, a network
 * hiccup) still runs an admit script it received, later: without a withdrawal its reservation (the
 * call's most possible cost) held the key's budget for the reservation TTL (15 min) and its
 * request-log entry counted against the requests per minute, though the gateway had served the call
 * from local state or refused it.
 *
 * Order does not matter: the withdrawal script (`withdrawScript`) removes what the admission
 * recorded when it ran first, and otherwise leaves a mark (for the reservation TTL) that makes the
 * admission record nothing when it arrives after. So a withdrawal is sent again until Redis answers
 * it (sending it twice does no harm), at most `limit` (default 10 000) kept: beyond, the oldest is
 * dropped and its reservation, if any, expires after its TTL as before.
 */
import { isRejectedByRedis } from './replay.ts';

/** One admission to withdraw: what its script would have recorded. */
export interface Withdrawal {
  key: string;
  /** The admission's id (its request-log entry and the mark's member). */
  id: string;
  /** Its reservation's member, `id:micros`. */
  member: string;
  /** Tokens it took from the bucket (given back), and the bucket's size. */
  tokens: number;
  tokensPerMinute: number;
}

/** Sends one withdrawal to Redis. */
export type SendWithdrawal = (withdrawal: Withdrawal) => Promise<void>;

/**
 * A failure after which an admit may still run in Redis: the command was sent and no answer came
 * (a timeout; the connection closing under it, which ioredis reports as "Connection is closed" or,
 * with no retries, "Reached the max retries per request limit"). One never sent (no connection:
 * "Stream isn't writeable") leaves nothing.
 */
export function mayHaveRun(error: unknown): boolean {
  return (
    error instanceof Error &&
    /^(Command timed out|Connection is closed|Reached the max retries per request limit)/.test(error.message)
  );
}

/**
 * The withdrawals waiting for Redis (see the module comment). Kept in the order added, in a `Set`
 * (and by key): one is taken off in O(1) whatever order Redis answers in, so a backlog of 10,000
 * drains in linear time. One on its way to Redis is not sent again until it has failed.
 */
export class Withdrawals {
  private readonly waiting = new Set<Withdrawal>();
  private readonly byKey = new Map<string, Set<Withdrawal>>();
  private readonly sending = new Set<Withdrawal>();
  /** Sent at least once (what `sendAhead(…, { once: true })` leaves to the drain). */
  private readonly tried = new WeakSet<Withdrawal>();
  private running: Promise<void> | undefined;
  /** Withdrawals Redis has answered. */
  sent = 0;
  /** Withdrawals dropped because the queue was full. */
  dropped = 0;

  private readonly send: SendWithdrawal;
  private readonly limit: number;

  constructor(send: SendWithdrawal, limit = 10_000) {
    this.send = send;
    this.limit = limit;
  }

  get size(): number {
    return this.waiting.size;
  }

  /** Queues the withdrawal of an admission given up on. */
  add(withdrawal: Withdrawal): void {
    this.waiting.add(withdrawal);
    let ofKey = this.byKey.get(withdrawal.key);
    if (ofKey === undefined) this.byKey.set(withdrawal.key, (ofKey = new Set()));
    ofKey.add(withdrawal);
    if (this.waiting.size <= this.limit) return;
    this.remove(this.waiting.values().next().value!);
    this.dropped++;
  }

  /**
   * Sends, without waiting for their answers, up to `most` waiting withdrawals of `key` not already
   * on their way. An admission of that key sent next on the same connection runs after them in
   * Redis (one connection's commands run in order; in a Cluster, one key's go to one node), so it
   * meets none of their reservations — and it never waits on the rest of a backlog. `once`: only
   * those never sent yet (while Redis is failing, one extra command per admission given up on).
   */
  sendAhead(key: string, options: { most?: number; once?: boolean } = {}): void {
    const ofKey = this.byKey.get(key);
    if (ofKey === undefined) return;
    const most = options.most ?? 64;
    let count = 0;
    for (const withdrawal of ofKey) {
      if (count >= most) break;
      if (this.sending.has(withdrawal) || (options.once === true && this.tried.has(withdrawal))) continue;
      void this.sendOne(withdrawal);
      count++;
    }
  }

  /**
   * Sends every waiting withdrawal, 64 at a time; stops at the first failure (the next success
   * starts it again).
   */
  run(): Promise<void> {
    if (this.waiting.size === 0) return Promise.resolve();
    this.running ??= this.drain().finally(() => (this.running = undefined));
    return this.running;
  }

  private remove(withdrawal: Withdrawal): void {
    this.waiting.delete(withdrawal);
    const ofKey = this.byKey.get(withdrawal.key);
    ofKey?.delete(withdrawal);
    if (ofKey?.size === 0) this.byKey.delete(withdrawal.key);
  }

  /** Sends one withdrawal; true when Redis answered it (it is then off the queue). */
  private async sendOne(withdrawal: Withdrawal): Promise<boolean> {
    this.sending.add(withdrawal);
    this.tried.add(withdrawal);
    try {
      await this.send(withdrawal);
      this.sent++;
    } catch (error) {
      // An error reply (a script error) would come back every time: dropped, never retried.
      if (!isRejectedByRedis(error)) return false;
    } finally {
      this.sending.delete(withdrawal);
    }
    this.remove(withdrawal);
    return true;
  }

  private async drain(): Promise<void> {
    while (this.waiting.size > 0) {
      const batch: Withdrawal[] = [];
      for (const withdrawal of this.waiting) {
        if (batch.length === 64) break;
        if (!this.sending.has(withdrawal)) batch.push(withdrawal);
      }
      // The rest is on its way already (sent ahead of admissions).
      if (batch.length === 0) return;
      const answered = await Promise.all(batch.map((withdrawal) => this.sendOne(withdrawal)));
      if (answered.includes(false)) return;
    }
  }
}
