/**
 * The Redis state store: limits, budgets, availability and stored Responses shared by every
 * gateway instance using the same Redis (or Valkey, or Redis Cluster: every multi-key script
 * touches keys of one hash tag, `{<key name>}`, or for stored values their key's `{<scope>}`).
 *
 * Client: ioredis, not node-redis, because it gives what this store needs out of the box — Lua
 * scripts as named commands (`defineCommand`: EVALSHA with a transparent EVAL fallback), automatic
 * pipelining of commands issued in the same tick, Redis Cluster with hash-slot routing in the same
 * API, a per-command timeout (`commandTimeout`) and reconnection with a backoff of our choosing.
 *
 * Fast path: `admit` is one script (one round trip) for the rate limits and the budget; the circuit
 * state is read from a local copy kept fresh by pub/sub and a refresh every `refreshMs` (≤ 1 s),
 * so a closed circuit costs no round trip. Transitions (failure, probe, release) are one script each.
 *
 * Clock: the scripts read Redis `TIME`, so every instance's admissions are timed by one clock and
 * an instance's own clock (skewed or not) moves no window. The UTC day and month that name the
 * spend keys are computed by the instance from its clock corrected by Redis's (learnt from each
 * admission's reply); the script checks them against `TIME` and asks again when they differ.
 *
 * Settles that fail (Redis down or slow) are applied to local state and queued for Redis
 * (`replay.ts`): they are sent again, once each, when Redis answers. Values stored locally during
 * an outage are written to Redis then too (`value-replay.ts`).
 */
import type { Cluster, Redis } from 'ioredis';
import { consoleLogger, guardLogger, type Logger } from '../core/logger.ts';
import { createMemoryStateStore } from './memory.ts';
import { isOutOfMemory, OutageTracker, StateUnavailableError } from './outage.ts';
import { RedisAvailabilityStore } from './redis-availability.ts';
import { connect, ConnectionWatch, executed, lastErrorOf, pingMs, subscriberOf } from './redis-connection.ts';
import { isRejectedByRedis, SettleReplay } from './replay.ts';
import { admitNumbers, reservationOf, reservationTtlMs } from './rules.ts';
import { admitScript, settleScript, storeValueScript, valueScript, withdrawScript } from './scripts.ts';
import {
  type Admission,
  type AdmitRequest,
  defaultMaxValueBytesPerGroup,
  overGroupBound,
  type KeyUsage,
  periodsOf,
  type Reservation,
  type Settlement,
  smallValueBytes,
  type StateFailureEvent,
  type StateFailurePolicy,
  type StateStore,
  type ValueGroupOptions,
} from './types.ts';
import { ValueReplay } from './value-replay.ts';
import { mayHaveRun, type Withdrawal, Withdrawals } from './withdrawals.ts';
import { limitOf } from './memory.ts';

/** Options of {@link createRedisStateStore}. */
export interface RedisStateStoreOptions extends ValueGroupOptions {
  /** `redis://host:port/db` or `rediss://…` (TLS). */
  url: string;
  /** Treat `url` as one seed node of a Redis Cluster. Default false. */
  cluster?: boolean;
  /** A command slower than this fails (`state_timeout_ms`). Default 50. */
  timeoutMs?: number;
  /** `on_state_failure`: `open` (default) serves from local state, `closed` refuses. */
  onFailure?: StateFailurePolicy;
  /** Told about every failed state operation (a metric). */
  onFailureEvent?: (event: StateFailureEvent) => void;
  /** Prefix of every key and channel. Default `switchyard`. */
  prefix?: string;
  /** An outage ends (one line logged) at a success this long after the last failure, ms. Default 5 000. */
  recoveryMs?: number;
  /** How often the local copy of the circuits is refreshed, ms. Default 500. */
  refreshMs?: number;
  logger?: Logger;
  /**
   * A clock for tests (ms since epoch), sent with every script in place of Redis `TIME`. Default:
   * Redis `TIME`, one clock for every instance.
   */
  now?: () => number;
  /** Most failed settles kept for replay (beyond: their cost is summed, see `replay.ts`). Default 10 000. */
  maxQueuedSettles?: number;
  /** Most values one run of the store script gives up (internal: tests lower it). Default 1 000. */
  maxGivenUpPerRun?: number;
}

/** A Redis state store, with its connection status. */
export interface RedisStateStore extends StateStore {
  /** Resolves once connected (or after `timeoutMs` × 20 without: the store then starts degraded). */
  readonly ready: Promise<void>;
  /** True while the last operation failed (an outage in progress). */
  readonly degraded: boolean;
  /**
   * Settles waiting for Redis (failed during an outage), those replayed so far, folded into sums,
   * refused by Redis with an error reply (dropped), and the micro-dollars of sums whose send timed out.
   */
  readonly settles: {
    readonly waiting: number;
    readonly replayed: number;
    readonly folded: number;
    readonly rejected: number;
    readonly lostMicros: number;
  };
  /** Values stored locally during an outage and not yet in Redis; those written there since. */
  readonly values: { readonly waiting: number; readonly shared: number };
  /** Admissions given up on (timed out) waiting to be withdrawn from Redis; those withdrawn since. */
  readonly withdrawals: { readonly waiting: number; readonly sent: number };
}

const dayTtlSeconds = 3 * 86_400;
/** Runs of the store script one store makes to find its room (and rounds of deletes after). */
const roomRounds = 32;
const monthTtlSeconds = 40 * 86_400;

type Client = Redis | Cluster;
type Args = Array<string | number>;
type Scripted = Client & {
  syAdmit(...args: Array<string | number>): Promise<unknown>;
  sySettle(...args: Array<string | number>): Promise<number>;
  syWithdraw(...args: Array<string | number>): Promise<number>;
};
/** One admission's sending: given up on or not, and what its last script sent would record. */
interface AdmitAttempt {
  gaveUp: boolean;
  sent: Withdrawal | undefined;
}
/** A MULTI holding the store script (ioredis adds defined commands to transactions too). */
interface StoreTransaction {
  syStore(...args: Array<string | number>): StoreTransaction;
  eval(script: string, keys: number, ...args: Array<string | number>): StoreTransaction;
  set(key: string, value: string, px: 'PX', ms: number): StoreTransaction;
  exec(): Promise<Array<[Error | null, unknown]> | null>;
}
type ValueClient = Client & {
  syValue(key: string, index: string, upTo: number, member: string): Promise<unknown>;
  syStore(...args: Array<string | number>): Promise<unknown>;
};

/**
 * Encodes a key name for a key: no `{`, `}`, `:` or spaces from the name can change the layout, and
 * the result is never empty (an empty `{}` is no hash tag: Redis Cluster would hash the whole key).
 */
export function keyPart(name: string): string {
  if (name === '') return '%';
  // Four hex digits a UTF-16 unit: `\nb` and `«` must not both read `%ab`.
  return name.replace(/[^A-Za-z0-9._-]/g, (unit) => `%${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The keys of one gateway key's state; all carry the hash tag `{<key>}` (one Cluster slot). */
export function stateKeys(prefix: string, key: string, day: string, month: string): string[] {
  const base = `${prefix}:{${keyPart(key)}}`;
  return [
    `${base}:bucket`,
    `${base}:spend:d:${day}`,
    `${base}:spend:m:${month}`,
    `${base}:inflight`,
    `${base}:requests`,
  ];
}

/** The key of one gateway key's withdrawn admissions (`withdrawals.ts`), in the same hash tag. */
export function withdrawnKey(prefix: string, key: string): string {
  return `${prefix}:{${keyPart(key)}}:withdrawn`;
}

/**
 * The keys of a stored value (`valueKeys(…)[0]`) and of its group's index, sizes and names given
 * up (their keys not yet deleted), all in the group's hash tag (one Cluster slot: the store script
 * bounds a group in one atomic step).
 */
export function valueKeys(prefix: string, group: string, name: string): [string, string, string, string] {
  const base = `${prefix}:{${keyPart(group)}}:value`;
  return [`${base}:${keyPart(name)}`, `${base}s`, `${base}-bytes`, `${base}-given-up`];
}

/** Thrown for a reply the admit script cannot have sent: the store's failure policy decides. */
const unreadable = () => new Error('Redis answered the admission with a reply it cannot have sent');

/** A number of a reply, or a throw (`NaN` must never reach a clock or a `retry-after`). */
function numberOf(value: unknown): number {
  const number = typeof value === 'string' && value !== '' ? Number(value) : Number.NaN;
  if (!Number.isFinite(number)) throw unreadable();
  return number;
}

/** The refusal an admit script replied (a reply of another shape is thrown: the policy decides). */
function refusalOf(reply: unknown): Admission {
  if (!Array.isArray(reply)) throw unreadable();
  if (reply[0] === 'budget' && (reply[1] === 'day' || reply[1] === 'month'))
    return {
      allowed: false,
      reason: 'budget_exceeded',
      period: reply[1],
      spentMicros: numberOf(reply[2]),
      limitMicros: numberOf(reply[3]),
    };
  if (reply[0] === 'rate' && (reply[1] === 'requests' || reply[1] === 'tokens'))
    return {
      allowed: false,
      reason: 'rate_limit',
      limit: reply[1],
      retryAfterSeconds: Math.min(86_400, Math.max(1, Math.ceil(numberOf(reply[2]) / 1000))),
    };
  throw unreadable();
}

/** The earliest and latest Redis clock taken (ms): a reply's time outside them is not a clock. */
const earliestClock = Date.UTC(2020, 0, 1);
const latestClock = Date.UTC(2100, 0, 1);

/**
 * Redis's clock in a reply, or undefined when it cannot be one (never kept as the offset). Not
 * compared with this instance's clock: a skewed instance takes Redis's time, as it should.
 */
function clockOf(value: unknown): number | undefined {
  const time = typeof value === 'string' && value !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(time) && time >= earliestClock && time <= latestClock ? time : undefined;
}

/** Creates the Redis state store (connects at once; reconnects for ever with a capped backoff). */
export function createRedisStateStore(options: RedisStateStoreOptions): RedisStateStore {
  const prefix = options.prefix ?? 'switchyard';
  const timeoutMs = options.timeoutMs ?? 50;
  /**
   * Stored values (a Responses conversation, up to the gateway's body limit) take longer to move
   * than an admission: at least 2 s, so a large one is read rather than taken for missing — and a
   * slow Redis still answers them, during an outage too — except while their connection left one
   * unanswered that long (`valueLimit`): they then fail as fast as every other command.
   */
  const valueTimeoutMs = Math.max(timeoutMs, 2000);
  const injected = options.now;
  /** Redis's clock as this instance last saw it (its own plus the offset seen in the last reply). */
  let offset = 0;
  const now = injected ?? (() => Date.now() + offset);
  const policy = options.onFailure ?? 'open';
  const logger = guardLogger(options.logger ?? consoleLogger);
  /** The last error a connection met (cleared when one is up): why commands fail at once. */
  let connectionError = (): string | undefined => undefined;
  const outage = new OutageTracker({
    logger,
    policy,
    connectionError: () => connectionError(),
    onFailure: options.onFailureEvent,
    recoveryMs: options.recoveryMs,
    onSuccess: () => {
      if (replay.size > 0) void replay.run();
      if (values.size > 0) void values.run();
      if (withdrawals.size > 0) void withdrawals.run();
    },
  });
  const local = createMemoryStateStore({
    now,
    valueGroupOf: options.valueGroupOf,
    maxValueBytesPerGroup: options.maxValueBytesPerGroup,
  });
  const client = connect(options.url, options.cluster === true, timeoutMs) as Scripted;
  client.defineCommand('syAdmit', { numberOfKeys: 6, lua: admitScript });
  client.defineCommand('syWithdraw', { numberOfKeys: 4, lua: withdrawScript });
  client.defineCommand('sySettle', { numberOfKeys: 5, lua: settleScript });
  /**
   * Stored values on a connection of their own: a Responses conversation can be megabytes, and on
   * the shared connection its transfer held up every admission queued behind it (a 50 MB value
   * delayed other requests by ~0.5 s).
   */
  const valueClient = connect(options.url, options.cluster === true, timeoutMs) as ValueClient;
  valueClient.defineCommand('syValue', { numberOfKeys: 2, lua: valueScript });
  valueClient.defineCommand('syStore', { numberOfKeys: 4, lua: storeValueScript });
  const maxGivenUpPerRun = Math.max(1, options.maxGivenUpPerRun ?? 1000);
  const groupOf = options.valueGroupOf ?? (() => '');
  const maxGroupBytes = options.maxValueBytesPerGroup ?? defaultMaxValueBytesPerGroup;
  const valueKeysOf = (name: string) => valueKeys(prefix, groupOf(name), name);
  connectionError = lastErrorOf([client, valueClient], options.url);
  // The subscriber queues its SUBSCRIBE until connected (it sends nothing else).
  // It waits through reconnects (no retry limit), and the store subscribes again itself after each
  // one: ioredis's own re-subscription (autoResubscribe) holds no handler, so a connection closing
  // before its reply was an unhandled rejection in the process.
  const subscriber = subscriberOf(client);
  // A connection that leaves a timed-out command unanswered for the stored values' timeout is
  // replaced (`ConnectionWatch`); the subscriber, which sends nothing else, is asked with a PING
  // (a Cluster's, on a connection of ioredis's own, is replaced with the shared one instead).
  const cluster = options.cluster === true;
  const watch = new ConnectionWatch(client, valueTimeoutMs, () => cluster && subscriber.disconnect(true));
  const valueWatch = new ConnectionWatch(valueClient, valueTimeoutMs);
  // Idle, it is asked too (the shared one is, by the circuits' re-read): a request after a quiet
  // spell would wait the values' 2 s on a connection gone silent meanwhile.
  valueWatch.pingEvery(pingMs, valueTimeoutMs, true);
  const subscriberWatch = new ConnectionWatch(subscriber, valueTimeoutMs);
  /** A stored value's timeout: its own, or the admissions' while its connection is silent. */
  const valueLimit = () => (valueWatch.silent ? timeoutMs : valueTimeoutMs);
  const availability = new RedisAvailabilityStore({
    client,
    subscriber,
    watch,
    subscriberWatch,
    timeoutMs,
    hash: `${prefix}:{circuits}:state`,
    channel: `${prefix}:circuits`,
    refreshMs: options.refreshMs ?? 500,
    outage,
  });
  const connected = (connection: Client) =>
    new Promise<void>((resolve) => {
      if (connection.status === 'ready') return resolve();
      connection.once('ready', () => resolve());
    });
  const ready = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs * 20);
    timer.unref();
    const steps = [
      connected(client),
      connected(valueClient),
      availability.subscribed,
      availability.refresh(),
    ];
    void Promise.all(steps).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });

  let admissions = 0;
  const instance = Math.random().toString(36).slice(2, 10);
  const keysOf = (key: string, day: string, month: string) => stateKeys(prefix, key, day, month);
  const clockArgument = () => (injected === undefined ? '' : injected());

  /**
   * One admission in Redis (asked again, at most twice, when the periods named were not Redis's).
   * `attempt.sent` is what the script sent last would record, for its withdrawal; none is sent once
   * `attempt.gaveUp` (the caller's deadline passed).
   */
  async function admitShared(request: AdmitRequest, attempt: AdmitAttempt): Promise<Admission> {
    const id = `${instance}-${++admissions}`;
    // The key's withdrawals go first, on the same connection: this admission runs after them in
    // Redis without waiting for their answers (nor for the rest of a backlog, drained in batches).
    // While the last command failed, only those never sent (the drain retries them on a success).
    if (withdrawals.size > 0) {
      withdrawals.sendAhead(request.key, { once: outage.lastFailed });
      if (!outage.lastFailed) void withdrawals.run();
    }
    let at = now();
    for (let round = 0; round < 3; round++) {
      if (attempt.gaveUp) throw new Error('the admission was given up on before it was sent');
      const numbers = admitNumbers(request, at);
      const periods = periodsOf(at);
      attempt.sent = {
        key: request.key,
        id,
        member: `${id}:${numbers.reserveMicros}`,
        tokens: numbers.tokens,
        tokensPerMinute: numbers.tokensPerMinute,
      };
      const reply = await client.syAdmit(
        ...keysOf(request.key, periods.day, periods.month),
        withdrawnKey(prefix, request.key),
        injected === undefined ? '' : at,
        numbers.requestsPerMinute,
        numbers.tokensPerMinute,
        numbers.tokens,
        numbers.dayLimitMicros,
        numbers.monthLimitMicros,
        numbers.reserveMicros,
        id,
        reservationTtlMs,
        periods.day,
        periods.month,
      );
      if (Array.isArray(reply) && (reply[0] === 'ok' || reply[0] === 'period')) {
        const clock = injected === undefined ? clockOf(reply[1]) : numberOf(reply[1]);
        // A `period` reply recorded nothing: one without a clock fails under the policy. An `ok`
        // one recorded the admission: it stands (refusing it would leave a reservation in Redis
        // that no settle releases), timed by this instance's clock, the offset left as it was.
        if (clock === undefined && reply[0] === 'period') throw unreadable();
        const redisNow = clock ?? now();
        if (clock !== undefined && injected === undefined) offset = clock - Date.now();
        at = redisNow;
        if (reply[0] === 'period') continue;
        const reservation = reservationOf(request.key, numbers, id, periods);
        return { allowed: true, reservation: { ...reservation, expiresAt: redisNow + reservationTtlMs } };
      }
      return refusalOf(reply);
    }
    throw new Error('the UTC day of this instance and of Redis disagree');
  }

  /**
   * An admission given up on (`guarded`'s one deadline passed, or its command failed): no further
   * script is sent for it, and one that was sent and may still run in Redis later is queued for
   * withdrawal — whatever the policy then does with the failure.
   */
  function gaveUp(attempt: AdmitAttempt, error: unknown): void {
    attempt.gaveUp = true;
    if (attempt.sent !== undefined && mayHaveRun(error)) withdrawals.add(attempt.sent);
  }

  const withdrawals = new Withdrawals((withdrawal) => {
    const [bucket, , , inflight, requests] = keysOf(withdrawal.key, '', '');
    return watch.run(
      () =>
        client
          .syWithdraw(
            bucket!,
            inflight!,
            requests!,
            withdrawnKey(prefix, withdrawal.key),
            clockArgument(),
            withdrawal.id,
            withdrawal.member,
            withdrawal.tokens,
            withdrawal.tokensPerMinute,
            reservationTtlMs,
          )
          .then(() => {}),
      timeoutMs,
    );
  });

  /** Sends a settle; `replay` for one sent again from the queue. */
  async function sendSettle(reservation: Reservation, used: Settlement, replay: boolean): Promise<void> {
    const member =
      reservation.local === true || reservation.id === ''
        ? ''
        : `${reservation.id}:${reservation.reserveMicros}`;
    await client.sySettle(
      ...keysOf(reservation.key, reservation.day, reservation.month),
      clockArgument(),
      reservation.tokensPerMinute,
      Math.max(0, Math.ceil(used.tokens)) - reservation.tokens,
      Math.max(0, Math.round(used.costMicros)),
      member,
      dayTtlSeconds,
      monthTtlSeconds,
      replay ? String(reservation.expiresAt ?? 0) : '',
    );
  }

  /**
   * Stores a value within its group's bound (`storeValueScript`, atomic whatever other instances
   * store). A run gives up at most `maxGivenUpPerRun` values (a script blocks Redis for all keys):
   * up to `roomRounds` runs, then `'full'`. The values given up (unread) wait in the group's set of
   * names given up, which a store empties (one that fails leaves them to the group's next store).
   */
  async function storeValue(name: string, value: string, ttlMs: number, nx: boolean): Promise<string> {
    const [key, index, sizes, givenUp] = valueKeysOf(name);
    const ttl = Math.max(1, Math.ceil(ttlMs));
    const script = [key, index, sizes, givenUp, clockArgument(), keyPart(name)];
    const bytes = Buffer.byteLength(value);
    if (!nx && maxGroupBytes > 0 && bytes > maxGroupBytes) return 'large';
    const base = key.slice(0, key.length - keyPart(name).length);
    const room = [...script, '', ttl, maxGroupBytes, nx ? '1' : '', bytes, maxGivenUpPerRun];
    let roomOnly = false;
    for (let round = 0; round < roomRounds; round += 1) {
      const reply: unknown = roomOnly
        ? await valueClient.syStore(...room, '1')
        : nx
          ? await valueClient.syStore(...script, value, ttl, maxGroupBytes, '1', '', maxGivenUpPerRun, '')
          : // The value by a plain SET, in one transaction with the script that makes its room: a
            // conversation of megabytes is not copied through Lua (a 24 MB one took over a second).
            await storeAndSet(key, [...room, ''], value, ttl);
      const [outcome, waiting] = Array.isArray(reply) ? (reply as unknown[]) : [];
      if (Number(waiting) > 0) await deleteGivenUp(base, givenUp);
      // Room still to make: runs that only make it (the value is not sent again), then the store.
      if (outcome === 'more' || outcome === 'room') roomOnly = outcome === 'more';
      else return String(outcome);
    }
    return 'full';
  }

  /** Deletes the keys of a group's values given up (a bounded number per store: 1,000 a round). */
  async function deleteGivenUp(base: string, givenUp: string): Promise<void> {
    for (let round = 0; round < roomRounds; round += 1) {
      const names = (await valueClient.spop(givenUp, 1000).catch(() => [])) as string[];
      if (names.length > 0) await valueClient.unlink(...names.map((name) => base + name)).catch(() => 0);
      if (names.length < 1000) return;
    }
  }

  /**
   * The store script and the value's SET in one MULTI: the script's reply. The SET runs even when the
   * script fails in the transaction: the key just written is then deleted. A Redis that lost its
   * script cache (`SCRIPT FLUSH`, a failover) answers `NOSCRIPT` among the EXEC replies, where ioredis
   * does not load it again: the transaction is sent once more by EVAL (which caches it again).
   */
  async function storeAndSet(
    key: string,
    args: Args,
    value: string,
    ttl: number,
    again = false,
  ): Promise<unknown> {
    const transaction = valueClient.multi() as unknown as StoreTransaction;
    if (again) transaction.eval(storeValueScript, 4, ...args);
    else transaction.syStore(...args);
    let scriptError = null as Error | null; // the script's error among the EXEC replies
    const results = await executed({
      exec: async () => {
        const replies = await transaction.set(key, value, 'PX', ttl).exec();
        scriptError = replies?.[0]?.[0] ?? null;
        return replies;
      },
    }).catch(async (error: unknown) => {
      if (scriptError === null) throw error;
      await valueClient.unlink(key).catch(() => 0);
      if (!again && /^NOSCRIPT/.test(scriptError.message)) return undefined;
      throw error;
    });
    return results === undefined ? await storeAndSet(key, args, value, ttl, true) : (results[0] as unknown);
  }

  /** A store's outcome as `set` tells it: a value over the bound on its own (or without room) rejects. */
  function stored(outcome: string | undefined, value: string): void {
    if (outcome === 'large' || outcome === 'full')
      throw overGroupBound(Buffer.byteLength(value), maxGroupBytes, outcome === 'full' ? roomRounds : 0);
  }

  const values = new ValueReplay(
    async (name, value, ttlMs) =>
      (await valueWatch.run(() => storeValue(name, value, ttlMs, true), valueTimeoutMs)) === 'ok',
    (name) => local.get(name),
  );

  const replay = new SettleReplay(
    (reservation, used) => watch.run(() => sendSettle(reservation, used, true), timeoutMs),
    options.maxQueuedSettles,
  );

  /** Operations whose refusal by Redis was logged (one WARN each per process; OOM's until a store succeeds). */
  const refusedOnce = new Set<string>();

  /**
   * Runs `operation` against Redis; on failure applies the policy (`local` answers or a refusal).
   * An error reply from a Redis that is up (a script meeting another writer's value under the
   * gateway's keys, `WRONGTYPE`) is no outage: serving from this instance's memory would make a
   * key's budget and limits per instance for as long as the value stays. It is `refused()` when
   * given (a stored value reads as absent), else a refusal (503), with one WARN naming it. So is
   * Redis out of memory (`OOM`) for a stored value: kept only here it would be a reply told stored
   * that the other instances cannot read, for as long as Redis stays full (the gateway's reply says
   * `store: false` instead). For the scripts an `OOM` is an outage (the policy decides).
   * `givenUp` is told of every failure, the deadline's (`limitMs`, the one an admission has) included,
   * before the policy applies (an admission stops sending and queues its withdrawal).
   */
  async function guarded<Value>(
    name: string,
    operation: () => Promise<Value>,
    fallback: () => Promise<Value>,
    policyHere: StateFailurePolicy = policy,
    limitMs = timeoutMs,
    connection: Client = client,
    refused?: () => Value,
    givenUp?: (error: unknown) => void,
  ): Promise<Value> {
    let value: Value;
    try {
      value = await (connection === client ? watch : valueWatch).run(operation, limitMs);
    } catch (error) {
      givenUp?.(error);
      const full = name === 'set' && isOutOfMemory(error);
      if (isRejectedByRedis(error) || full) {
        const warned = full ? 'set (OOM)' : name;
        if (!refusedOnce.has(warned)) {
          refusedOnce.add(warned);
          logger.warn(
            full
              ? 'state store: Redis is out of memory (maxmemory reached, OOM): stored values are refused until it has room'
              : 'state store: Redis refused an operation (a value of another shape under its keys?)',
            { operation: name, error: (error as Error).message.slice(0, 200) },
          );
        }
        if (refused !== undefined) return refused();
        const answer = (error as Error).message.split(' ', 1)[0];
        throw new StateUnavailableError(name, { cause: error, reason: `Redis refused it (${answer})` });
      }
      // Under `open` the fallback serves, or refuses too: told as what it did (the metric's `outcome`).
      if (policyHere === 'open') return outage.servedLocally(name, error, fallback);
      outage.failed(name, error, policyHere);
      throw new StateUnavailableError(name, {
        cause: error,
        reason: policyHere === policy ? undefined : 'it must reach Redis (no local fallback)',
      });
    }
    // Redis has room again: a later OOM is warned of again.
    if (name === 'set' && refusedOnce.size > 0) refusedOnce.delete('set (OOM)');
    // A value's success ends an outage only when the shared connection is up too: the circuits'
    // copy (`availability`) must not be trusted while admissions still fail.
    if (connection === client || client.status === 'ready') outage.succeeded();
    return value;
  }

  /**
   * Reads a stored value on its own connection (a value another writer left in another type: none);
   * `shared`: never from this instance's memory alone (a failure is a `StateUnavailableError`).
   */
  const readValue = (
    name: string,
    operation: () => Promise<string | undefined>,
    shared: boolean,
    authoritative: boolean,
  ) =>
    guarded(
      'get',
      operation,
      async () => {
        const kept = await local.get(name);
        // Redis was not asked: no value here is no answer (`authoritative`), not "there is none".
        if (kept === undefined && authoritative)
          throw new StateUnavailableError('get', {
            reason: 'Redis could not be asked, and none is held here',
          });
        return kept;
      },
      shared ? 'closed' : policy,
      valueLimit(),
      valueClient,
      () => undefined,
    );

  return {
    availability,
    ready,
    get degraded() {
      return outage.lastFailed;
    },
    get refusing() {
      // A command timed out in the last second (two circuits re-reads): a Redis silent or slower
      // than the timeout, whose late replies would otherwise make an idle instance's /readyz flap.
      return (
        policy === 'closed' && (client.status !== 'ready' || outage.lastFailed || watch.timedOutWithin(1000))
      );
    },
    get settles() {
      return {
        waiting: replay.size,
        replayed: replay.replayed,
        folded: replay.folded,
        rejected: replay.rejected,
        lostMicros: replay.lost,
      };
    },
    get values() {
      return { waiting: values.size, shared: values.shared };
    },
    get withdrawals() {
      return { waiting: withdrawals.size, sent: withdrawals.sent };
    },
    admit(request) {
      const attempt: AdmitAttempt = { gaveUp: false, sent: undefined };
      return guarded(
        'admit',
        () => admitShared(request, attempt),
        async () => {
          const admission = await local.admit(request);
          if (admission.allowed) admission.reservation.local = true;
          return admission;
        },
        policy,
        timeoutMs,
        client,
        undefined,
        (error) => gaveUp(attempt, error),
      );
    },
    async settle(reservation, used) {
      if (reservation.local === true) {
        // Admitted from local state during an outage: Redis never saw it, its cost goes there later.
        await local.settle(reservation, used);
        // Sent when Redis answers again (every success restarts the replay), not from here: while Redis
        // is failing, each settle would start another round of commands at it.
        replay.addSpend(reservation, used.costMicros);
        return;
      }
      return guarded(
        'settle',
        () => sendSettle(reservation, used, false),
        async () => {
          await local.settle(reservation, used);
          replay.add(reservation, used);
        },
        // The call already happened: its spend is kept (locally, and queued for Redis) whatever the policy.
        'open',
      );
    },
    usage: (key, budget) =>
      guarded(
        'usage',
        async (): Promise<KeyUsage> => {
          const at = now();
          const periods = periodsOf(at);
          const [, day, month, inflight] = keysOf(key, periods.day, periods.month);
          const [dayValue, monthValue, members] = await Promise.all([
            client.get(day!),
            client.get(month!),
            client.zrangebyscore(inflight!, `(${at}`, '+inf'),
          ]);
          let reservedMicros = 0;
          for (const member of members)
            reservedMicros += Number(member.slice(member.lastIndexOf(':') + 1)) || 0;
          const daySpent = Number(dayValue ?? 0);
          const monthSpent = Number(monthValue ?? 0);
          return {
            key,
            day: {
              period: periods.day,
              spentMicros: daySpent,
              reservedMicros,
              ...limitOf(budget?.usdPerDay, daySpent),
            },
            month: {
              period: periods.month,
              spentMicros: monthSpent,
              reservedMicros,
              ...limitOf(budget?.usdPerMonth, monthSpent),
            },
          };
        },
        () => local.usage(key, budget),
      ),
    set: async (name, value, ttlSeconds, setOptions) =>
      stored(
        await guarded(
          'set',
          async () => {
            const outcome = await storeValue(name, value, ttlSeconds * 1000, false);
            // A copy this instance kept during an outage is replaced too: read after Redis, it would
            // answer again if Redis lost the shared value (a restart without persistence).
            if (outcome === 'ok' && setOptions?.shared === true && (await local.get(name)) !== undefined)
              await local.set(name, value, ttlSeconds);
            return outcome;
          },
          async () => {
            await local.set(name, value, ttlSeconds);
            values.add(name, ttlSeconds * 1000);
            return undefined;
          },
          setOptions?.shared === true ? 'closed' : policy,
          valueLimit(),
          valueClient,
        ),
        value,
      ),
    async get(name, hold, getOptions) {
      const shared = getOptions?.shared === true;
      const authoritative = getOptions?.authoritative === true;
      const [key, index] = valueKeysOf(name);
      // Read only while indexed: a value its key gave up reads as none before its delete lands.
      const read = async (upTo: number) =>
        (await valueClient.syValue(key, index, upTo, keyPart(name))) as [number, string | null | undefined];
      // A large value by a plain GET (not copied through Lua), read only while indexed. A pipeline,
      // not a MULTI: Redis over its maxmemory refuses a whole transaction, reads included (`OOM`).
      const fetched = async () => {
        const results = await executed(valueClient.pipeline().zscore(index, keyPart(name)).get(key));
        const value = results[0] === null ? null : (results[1] as string | null);
        return value ?? (await local.get(name));
      };
      if (hold === undefined) return readValue(name, fetched, shared, authoritative);
      // Its size first, and a small value with it (one round trip): a large one is held, or refused
      // (`hold` throws), by that size before a byte of it is fetched. Told outside `guarded`: a
      // refusal is no failure of the store.
      let large = 0;
      const small = await readValue(
        name,
        async () => {
          const [size, value] = await read(smallValueBytes);
          if (value !== undefined) return value ?? (await local.get(name));
          large = size;
          return undefined;
        },
        shared,
        authoritative,
      );
      if (large === 0) {
        if (small !== undefined) hold(small.length);
        return small;
      }
      hold(large);
      return readValue(name, fetched, shared, authoritative);
    },
    async close() {
      // One last try for settles still waiting: a restart must not drop the spend they carry.
      if ((replay.size > 0 || values.size > 0 || withdrawals.size > 0) && !outage.failing) {
        let timer: NodeJS.Timeout | undefined;
        // Long enough for one large stored value (its own timeout) when values wait.
        const limit = values.size > 0 ? Math.max(timeoutMs * 20, valueTimeoutMs) : timeoutMs * 20;
        const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, limit)));
        await Promise.race([Promise.all([replay.run(), values.run(), withdrawals.run()]), bound]).finally(
          () => clearTimeout(timer),
        );
      }
      if (replay.size > 0)
        logger.warn('state store closed with settles not replayed', { waiting: replay.size });
      if (values.size > 0)
        logger.warn('state store closed with values stored during an outage not shared', {
          waiting: values.size,
        });
      watch.close();
      valueWatch.close();
      await availability.close();
      await local.close();
      client.disconnect();
      valueClient.disconnect();
    },
  };
}
