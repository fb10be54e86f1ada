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

/** The withdrawals waiting for Redis (see the module comment). */
export class Withdrawals {
  private readonly waiting: Withdrawal[] = [];
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
    return this.waiting.length;
  }

  /** Queues the withdrawal of an admission given up on. */
  add(withdrawal: Withdrawal): void {
    this.waiting.push(withdrawal);
    if (this.waiting.length <= this.limit) return;
    this.waiting.shift();
    this.dropped++;
  }

  /** Sends every waiting withdrawal; stops at the first failure (the next success starts it again). */
  run(): Promise<void> {
    if (this.waiting.length === 0) return Promise.resolve();
    this.running ??= this.drain().finally(() => (this.running = undefined));
    return this.running;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.slice(0, 64);
      const results = await Promise.allSettled(batch.map((withdrawal) => this.send(withdrawal)));
      let failed = false;
      for (const [index, result] of results.entries()) {
        // An error reply (a script error) would come back every time: dropped, never retried.
        const answered = result.status === 'fulfilled' || isRejectedByRedis(result.reason);
        if (!answered) {
          failed = true;
          continue;
        }
        if (result.status === 'fulfilled') this.sent++;
        // Taken off by identity: withdrawals added (and old ones dropped) meanwhile stay in order.
        const at = this.waiting.indexOf(batch[index]!);
        if (at !== -1) this.waiting.splice(at, 1);
      }
      if (failed) return;
    }
  }
}
