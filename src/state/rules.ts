/**
 * The limit and budget rules as plain functions over one key's state: two token buckets (requests
 * and tokens per minute, refilled continuously, starting full) and spend per UTC day and month with
 * the reservations of calls in flight. The memory store applies them directly; the Redis store's
 * Lua script (`scripts.ts`) applies the same rules server-side, and one test suite runs on both.
 */
import type { AdmitRequest, Admission, Reservation, Settlement } from './types.ts';
import { toMicros } from './types.ts';

/** One key's state. */
export interface KeyState {
  /** Requests and tokens left in the buckets at `at` (ms). */
  bucket?: { requests: number; tokens: number; at: number };
  /** Spend by period (`d:YYYYMMDD`, `m:YYYYMM`), micro-dollars. */
  spend: Map<string, number>;
  /** Budget reservations of calls in flight: id → micro-dollars and expiry (ms). */
  inflight: Map<string, { micros: number; expiresAt: number }>;
}

/** How long a budget reservation lives if its call never settles (a crashed instance), ms. */
export const reservationTtlMs = 15 * 60_000;

const minute = 60_000;

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
    requestsPerMinute: positive(request.limits?.requestsPerMinute),
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
  if (rpm > 0 || tpm > 0) {
    const bucket = state.bucket ?? { requests: rpm, tokens: tpm, at: now };
    const elapsed = Math.max(0, now - bucket.at);
    const requests = Math.min(rpm, bucket.requests + (elapsed * rpm) / minute);
    const tokens = Math.min(tpm, bucket.tokens + (elapsed * tpm) / minute);
    if (rpm > 0 && requests < 1) return rateLimited('requests', ((1 - requests) * minute) / rpm);
    const need = Math.min(numbers.tokens, tpm);
    if (tpm > 0 && tokens < need) return rateLimited('tokens', ((need - tokens) * minute) / tpm);
    state.bucket = {
      requests: rpm > 0 ? requests - 1 : 0,
      tokens: tpm > 0 ? tokens - numbers.tokens : 0,
      // Never backwards: a call whose clock reading arrives late must not refill the same time twice.
      at: Math.max(bucket.at, now),
    };
  }
  if (budgeted && numbers.reserveMicros > 0)
    state.inflight.set(id, { micros: numbers.reserveMicros, expiresAt: now + reservationTtlMs });
  return undefined;
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
