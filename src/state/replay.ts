/**
 * Settles that could not reach Redis (an outage, a timeout), kept and sent again once Redis answers,
 * so the spend of calls served during an outage is not lost from the shared budgets.
 *
 * - A settle of a reservation Redis admitted is queued whole (at most `limit`, default 10 000) and
 *   replayed with its reservation's expiry: the script applies it once — a replay whose reservation
 *   is already gone before its expiry had reached Redis the first time (only its reply was lost) and
 *   is skipped. Past the expiry (an outage longer than the reservation TTL, 15 min) Redis cannot
 *   tell, and the replay is applied: a cost may then count twice, never zero times.
 * - The spend of calls admitted from local state during the outage (Redis never saw them) is summed
 *   per key and UTC day/month and replayed as one increment each: bounded by the number of keys.
 * - Beyond `limit` queued settles, the oldest is folded into those sums: its cost still reaches
 *   Redis (at least once); its token correction and the early release of its reservation are lost
 *   (the tokens bucket refills within a minute; the reservation expires after its TTL).
 */
import type { Reservation, Settlement } from './types.ts';

/** Sends one queued settle to Redis (`reservation.local`: a cost-only sum, no member to guard on). */
export type SendSettle = (reservation: Reservation, used: Settlement) => Promise<void>;

/** A send that timed out may still have reached Redis (`withTimeout` cannot take a command back). */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Command timed out';
}

/**
 * An error reply from Redis (a script error, `WRONGTYPE`): the command reached Redis and was refused,
 * and would be again. `OOM`, `LOADING`/`BUSY` and a failover (`READONLY`, `MASTERDOWN`) pass with
 * time, so they stay outages.
 */
export function isRejectedByRedis(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'ReplyError' &&
    !/^(OOM|LOADING|BUSY|TRYAGAIN|CLUSTERDOWN|READONLY|MASTERDOWN|NOREPLICAS)\b/.test(error.message)
  );
}

/** The queue of settles waiting for Redis (see the module comment). */
export class SettleReplay {
  /** Settles of Redis reservations, oldest first. */
  private readonly queued: Array<{ reservation: Reservation; used: Settlement }> = [];
  /** Cost-only increments by key and periods. */
  private readonly sums = new Map<string, { reservation: Reservation; micros: number }>();
  private running: Promise<void> | undefined;
  /** Queued settles taken out of the queue and being sent. */
  private sending = 0;
  /** Settles replayed so far. */
  replayed = 0;
  /** Queued settles folded into the sums because the queue was full. */
  folded = 0;
  /** Micro-dollars of cost sums whose send timed out: maybe applied, so not sent again. */
  lost = 0;
  /** Queued settles Redis refused with an error reply (not an outage): dropped, never retried. */
  rejected = 0;

  private readonly send: SendSettle;
  private readonly limit: number;

  constructor(send: SendSettle, limit = 10_000) {
    this.send = send;
    this.limit = limit;
  }

  /** Settles (and sums) waiting. */
  get size(): number {
    return this.queued.length + this.sending + this.sums.size;
  }

  /** Queues the settle of a reservation Redis admitted. */
  add(reservation: Reservation, used: Settlement): void {
    this.queued.push({ reservation, used });
    if (this.queued.length <= this.limit) return;
    const oldest = this.queued.shift()!;
    this.folded++;
    this.addSpend(oldest.reservation, oldest.used.costMicros);
  }

  /** Adds the cost of a call Redis never saw (admitted from local state). */
  addSpend(reservation: Reservation, costMicros: number): void {
    const micros = Math.max(0, Math.round(costMicros));
    if (micros === 0) return;
    const name = `${reservation.key}\n${reservation.day}\n${reservation.month}`;
    const sum = this.sums.get(name);
    if (sum !== undefined) sum.micros += micros;
    else
      this.sums.set(name, {
        // A cost-only settle: no member, no tokens, no expiry guard.
        reservation: { ...reservation, id: '', reserveMicros: 0, tokens: 0, tokensPerMinute: 0, local: true },
        micros,
      });
  }

  /** Sends everything waiting; stops at the first failure (the next success starts it again). */
  run(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    this.running ??= this.drain().finally(() => (this.running = undefined));
    return this.running;
  }

  private async drain(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0, 64);
      this.sending = batch.length;
      const results = await Promise.allSettled(
        batch.map((entry) => this.send(entry.reservation, entry.used)),
      );
      this.sending = 0;
      // Failed ones go back to the head of the queue, in order — unless Redis answered with a script
      // error: that entry would fail the same way every time and hold back everything behind it.
      const failed: typeof batch = [];
      for (const [index, result] of results.entries()) {
        if (result.status === 'fulfilled') this.replayed++;
        else if (isRejectedByRedis(result.reason)) this.rejected++;
        else failed.push(batch[index]!);
      }
      this.queued.unshift(...failed);
      if (failed.length > 0) return;
    }
    for (const [name, sum] of [...this.sums]) {
      // Taken off before sending: a cost sum has no member for the script to recognise, so one sent
      // twice would be charged twice. Only a failure that certainly never reached Redis puts it
      // back; a timeout may have been applied, and then at most this one sum is lost, never doubled.
      const micros = sum.micros;
      sum.micros = 0;
      try {
        await this.send(sum.reservation, { tokens: 0, costMicros: micros });
      } catch (error) {
        if (!isTimeout(error)) sum.micros += micros;
        else this.lost += micros;
        return;
      } finally {
        // Costs added while it was being sent stay for the next round.
        if (sum.micros <= 0) this.sums.delete(name);
      }
      this.replayed++;
    }
  }
}
