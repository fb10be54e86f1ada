/**
 * The limit and budget rules as plain functions over one key's state. The memory store applies them
 * directly; the Redis store's Lua script (`scripts.ts`) applies the same rules server-side, and one
 * test suite runs on both.
 *
 * - Requests per minute: exact, a sliding-window log. The admission times of the last 60 s are kept
 *   (at most N of them); a request is admitted only while fewer than N are younger than 60 s, and
 *   its time is added. So no rolling 60 s window ever holds more than N admissions: take any
 *   window and the last admission in it; every other admission in that window is younger than 60 s
 *   at that moment and was in the log, and the log then held fewer than N. (The admission times are
 *   one clock's — Redis `TIME` in the shared store — and never go backwards there.) A refused
 *   request waits until the oldest logged admission leaves the window (`retry-after`). Cost: up to N
 *   entries per key (a Redis sorted set of ~40 bytes an entry).
 * - Tokens per minute: a weighted token bucket (capacity N tokens, refilled continuously at N a
 *   minute, starting full). Tokens are reserved from the input estimate plus `max_tokens` and
 *   corrected with the billed usage at settle, so the amount taken is only known after the call; an
 *   exact log would have to re-weigh entries after the fact and sum them on every request. The
 *   bucket bounds the tokens taken in any 60 s window by 2 × N (a full bucket plus one minute of
 *   refill; a call counts its reservation until it settles, its billed tokens after), plus at most
 *   one call larger than the whole bucket (admitted when it is full).
 * - Budgets: spend per UTC day and month with the reservations of calls in flight.
 */
import type { AdmitRequest, Admission, Reservation, Settlement } from './types.ts';
import { toMicros } from './types.ts';

/** One key's state. */
export interface KeyState {
  /** The requests-per-minute log: admission times (ms) ascending, live from `head` on. */
  requests?: { times: number[]; head: number };
  /** Tokens left in the bucket at `at` (ms). */
  bucket?: { tokens: number; at: number };
  /** Spend by period (`d:YYYYMMDD`, `m:YYYYMM`), micro-dollars. */
  spend: Map<string, number>;
  /** Budget reservations of calls in flight: id → micro-dollars and expiry (ms). */
  inflight: Map<string, { micros: number; expiresAt: number }>;
}

/** How long a budget reservation lives if its call never settles (a crashed instance), ms. */
export const reservationTtlMs = 15 * 60_000;

/** The rate limits' window, ms. */
export const minute = 60_000;

/** The numbers one admission needs, as the Lua script receives them (-1: no limit). */
export interface AdmitNumbers {
  now: number;
  requestsPerMinute: number;
  tokensPerMinute: number;
  tokens: number;
  dayLimitMicros: number;
  monthLimitMicros: number;
  reserveMicros: number;
}

/** The request's limits as numbers (0 rpm/tpm: unlimited; -1 budget: unlimited). */
export function admitNumbers(request: AdmitRequest, now: number): AdmitNumbers {
  const budget = request.budget;
  return {
    now,
    requestsPerMinute: wholeRequests(request.limits?.requestsPerMinute),
    tokensPerMinute: positive(request.limits?.tokensPerMinute),
    tokens: Math.max(0, Math.ceil(request.tokens)),
    dayLimitMicros: budget?.usdPerDay === undefined ? -1 : toMicros(budget.usdPerDay),
    monthLimitMicros: budget?.usdPerMonth === undefined ? -1 : toMicros(budget.usdPerMonth),
    reserveMicros: Math.max(0, Math.round(request.reserveMicros ?? 0)),
  };
}

/** The reservation an admitted request holds until its settle (the same in every store). */
export function reservationOf(
  key: string,
  numbers: AdmitNumbers,
  id: string,
  periods: { day: string; month: string },
): Reservation {
  return {
    key,
    tokens: numbers.tokens,
    reserveMicros: numbers.reserveMicros,
    id,
    ...periods,
    tokensPerMinute: numbers.tokensPerMinute,
  };
}

/** A whole number of requests, at least 1 (never more than configured): the log admits below it. */
function wholeRequests(value: number | undefined): number {
  const limit = positive(value);
  return limit === 0 ? 0 : Math.max(1, Math.floor(limit));
}

function positive(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The refusal, or `undefined` when the call may go; on admission the state is updated. */
export function admitRule(
  state: KeyState,
  numbers: AdmitNumbers,
  periods: { day: string; month: string },
  id: string,
): Exclude<Admission, { allowed: true }> | undefined {
  const { now } = numbers;
  const budgeted = numbers.dayLimitMicros >= 0 || numbers.monthLimitMicros >= 0;
  if (budgeted) {
    let reserved = 0;
    for (const [member, entry] of state.inflight) {
      if (entry.expiresAt <= now) state.inflight.delete(member);
      else reserved += entry.micros;
    }
    const checks = [
      ['day', numbers.dayLimitMicros, state.spend.get(`d:${periods.day}`) ?? 0],
      ['month', numbers.monthLimitMicros, state.spend.get(`m:${periods.month}`) ?? 0],
    ] as const;
    for (const [period, limitMicros, spent] of checks) {
      if (limitMicros >= 0 && spent + reserved >= limitMicros)
        return {
          allowed: false,
          reason: 'budget_exceeded',
          period,
          spentMicros: spent + reserved,
          limitMicros,
        };
    }
  }
  const { requestsPerMinute: rpm, tokensPerMinute: tpm } = numbers;
  if (rpm > 0) {
    const log = (state.requests ??= { times: [], head: 0 });
    const { times } = log;
    // Drop what left the window (≤ now - 60 s), then keep at most the newest `rpm` entries.
    let head = log.head;
    while (head < times.length && times[head]! <= now - minute) head++;
    head = Math.max(head, times.length - rpm);
    if (head * 2 >= times.length) {
      times.splice(0, head); // amortised: the dropped prefix is at least half the array
      head = 0;
    }
    log.head = head;
    if (times.length - head >= rpm) return rateLimited('requests', times[head]! + minute - now);
  }
  let tokens = 0;
  let at = now;
  if (tpm > 0) {
    const bucket = state.bucket ?? { tokens: tpm, at: now };
    tokens = Math.min(tpm, bucket.tokens + (Math.max(0, now - bucket.at) * tpm) / minute);
    const need = Math.min(numbers.tokens, tpm);
    if (tokens < need) return rateLimited('tokens', ((need - tokens) * minute) / tpm);
    // Never backwards: a call whose clock reading arrives late must not refill the same time twice.
    at = Math.max(bucket.at, now);
  }
  if (rpm > 0) insertSorted(state.requests!, now);
  if (tpm > 0) state.bucket = { tokens: tokens - numbers.tokens, at };
  if (budgeted && numbers.reserveMicros > 0)
    state.inflight.set(id, { micros: numbers.reserveMicros, expiresAt: now + reservationTtlMs });
  return undefined;
}

/** Adds `value` to the log in order (a late clock reading lands in its place, as in a sorted set). */
function insertSorted(log: { times: number[]; head: number }, value: number): void {
  const { times } = log;
  let index = times.length;
  while (index > log.head && times[index - 1]! > value) index--;
  times.splice(index, 0, value);
}

function rateLimited(limit: 'requests' | 'tokens', waitMs: number): Exclude<Admission, { allowed: true }> {
  return {
    allowed: false,
    reason: 'rate_limit',
    limit,
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
  };
}

/** Reconciles `reservation` with what the call used: tokens corrected, reservation dropped, spend added. */
export function settleRule(state: KeyState, reservation: Reservation, used: Settlement): void {
  state.inflight.delete(reservation.id);
  const tpm = reservation.tokensPerMinute;
  if (tpm > 0 && state.bucket !== undefined) {
    const delta = Math.max(0, Math.ceil(used.tokens)) - reservation.tokens;
    state.bucket.tokens = Math.min(tpm, state.bucket.tokens - delta);
  }
  const cost = Math.max(0, Math.round(used.costMicros));
  if (cost > 0) {
    const current = [`d:${reservation.day}`, `m:${reservation.month}`];
    // Past periods are never read again (the Redis keys expire instead).
    for (const period of state.spend.keys()) if (!current.includes(period)) state.spend.delete(period);
    for (const period of current) state.spend.set(period, (state.spend.get(period) ?? 0) + cost);
  }
}

/** Spent and reserved micro-dollars of one period. */
export function periodUsage(state: KeyState | undefined, period: string, now: number) {
  let reservedMicros = 0;
  for (const entry of state?.inflight.values() ?? [])
    if (entry.expiresAt > now) reservedMicros += entry.micros;
  return { spentMicros: state?.spend.get(period) ?? 0, reservedMicros };
}
