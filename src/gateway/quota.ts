/**
 * Per-key limits and budgets at the gateway: before dispatch one `admit` (rate limits and budget in
 * one atomic step of the state store, one Redis round trip) reserving the input estimate plus
 * `max_tokens` and the cost that could bill; after the call one `settle` with what was billed. A
 * refusal is a wire error in the client protocol's shape: 429 with `retry-after` for a rate
 * limit, a non-retryable 402 `budget_exceeded` for a budget, a 403 `model_not_priced` for a key with
 * a budget naming a model without a price (its calls could not be counted), 503 when the shared
 * state is down and the policy is `closed`.
 */
import type { WireError } from '../codecs/types.ts';
import { shown } from '../codecs/fields.ts';
import { billedTokens, type Usage } from '../core/usage.ts';
import { wantsReasoning } from '../core/request.ts';
import { computeCost } from '../pricing/cost.ts';
import type { PriceTable } from '../pricing/price-table.ts';
import type { ModelPrices } from '../pricing/types.ts';
import { estimateUpperBound } from '../providers/common/token-estimate.ts';
import { defaultOutputTokens } from '../routing/candidates.ts';
import type { RouteRequest } from '../routing/router.ts';
import { StateUnavailableError } from '../state/outage.ts';
import {
  type KeyBudget,
  type KeyLimits,
  type Reservation,
  type StateStore,
  toMicros,
} from '../state/types.ts';

/** A key's quota as configured (`gateway.keys[].limits`, `.budget`). */
export interface KeyQuota {
  name: string;
  limits?: KeyLimits;
  budget?: KeyBudget;
}

/** Thrown by {@link admitCall} with the wire error to answer. */
export class QuotaError extends Error {
  override name = 'QuotaError';
  readonly wire: WireError;

  constructor(wire: WireError) {
    super(wire.message);
    this.wire = wire;
  }
}

/** What admission needs to know about the call. */
export interface QuotaCall {
  request: Pick<RouteRequest, 'transcript' | 'tools' | 'maxOutputTokens' | 'reasoning'>;
  /** The canonical id the model name resolved to (for the cost reservation), if it resolved. */
  modelId?: string;
  /**
   * The ids of the fallbacks the call may reach: the reservation is priced on the dearest. With a
   * budget, only priced ones ({@link isPriced}): the caller keeps routing off the others.
   */
  fallbackIds?: readonly string[];
  /** The prices of a model's own config entry (`models.<id>.pricing`), by id: they win over the table. */
  pricing?: Readonly<Record<string, ModelPrices>>;
  /** The model's output limit, 0 when unknown (the default output is reserved within it). */
  maxOutputTokens?: number;
  /**
   * The most output any candidate can be sent, when every candidate bounds it: routing lowers a
   * cap above the limit of an alias's target or a fallback to that limit (`routedOutputLimit`), so
   * a larger cap is reserved only this far. Undefined: the cap is reserved as asked.
   */
  outputCap?: number;
}

/** True when the key has anything to enforce. */
export function hasQuota(key: KeyQuota | undefined): key is KeyQuota {
  return key !== undefined && (key.limits !== undefined || key.budget !== undefined);
}

/**
 * Admits a call for `key` or throws a {@link QuotaError}. Returns the reservation to settle (also
 * when the call then fails). A shared store that is down answers by its policy: served from local
 * state (`open`) or refused here with 503 (`closed`).
 */
export async function admitCall(
  store: StateStore,
  key: KeyQuota,
  call: QuotaCall,
  prices: PriceTable,
): Promise<Reservation> {
  // What routing gives a request that sets none (`defaultOutputTokens`), reserved as it may be used.
  const asked = call.request.maxOutputTokens;
  const output =
    asked === undefined
      ? defaultOutputTokens(call.maxOutputTokens ?? 0, wantsReasoning(call.request.reasoning))
      : Math.min(asked, call.outputCap ?? asked);
  // A fallback may serve the call: reserved at the dearest of them, settled at what it cost.
  const priced = key.budget !== undefined && call.modelId !== undefined;
  // A model without a price would be reserved and charged $0, as often as the key likes.
  if (priced && !isPriced(call.modelId!, call.pricing, prices)) throw unpricedModel(key, call.modelId!);
  const ids = priced
    ? [call.modelId!, ...(call.fallbackIds ?? []).filter((id) => isPriced(id, call.pricing, prices))]
    : [];
  const reserveFor = (input: number) =>
    ids.reduce(
      (dearest, id) => Math.max(dearest, estimatedMicros(id, input, output, call.pricing, prices) ?? 0),
      0,
    );
  const input = inputBound(call, key, output, priced ? reserveFor : undefined);
  const reserveMicros = priced ? reserveFor(input) : 0;
  return admitted(store, key, { tokens: input + output, budget: key.budget, reserveMicros });
}

/**
 * Admits a request that generates nothing — a stored reply read, listed or deleted, a token count —
 * for `key`, or throws the 429 of {@link admitCall}: one of its requests per minute, no tokens and no
 * budget (it costs nothing upstream). Returns the reservation to settle (with no usage).
 */
export function admitRequest(store: StateStore, key: KeyQuota): Promise<Reservation> {
  return admitted(store, key, { tokens: 0, budget: undefined, reserveMicros: 0 });
}

/** The state store's admission of `key` for `what`, or the {@link QuotaError} to answer. */
async function admitted(
  store: StateStore,
  key: KeyQuota,
  what: { tokens: number; budget: KeyBudget | undefined; reserveMicros: number },
): Promise<Reservation> {
  let admission;
  try {
    admission = await store.admit({
      key: key.name,
      tokens: what.tokens,
      limits: key.limits,
      budget: what.budget,
      reserveMicros: what.reserveMicros,
    });
  } catch (error) {
    if (!StateUnavailableError.isInstance(error)) throw error;
    throw new QuotaError({
      status: 503,
      errorClass: 'server_error',
      code: 'state_unavailable',
      message: 'the gateway cannot reach its shared state; try again shortly',
      retryAfterSeconds: 1,
      retryable: true,
    });
  }
  if (admission.allowed) return admission.reservation;
  if (admission.reason === 'rate_limit') {
    const limit =
      admission.limit === 'requests'
        ? `${key.limits?.requestsPerMinute} requests per minute`
        : `${key.limits?.tokensPerMinute} tokens per minute`;
    throw new QuotaError({
      status: 429,
      errorClass: 'rate_limit',
      // OpenAI's `type` names the limit: `requests` or `tokens`.
      type: admission.limit === 'requests' ? 'requests' : 'tokens',
      message: `key '${key.name}' is over its limit of ${limit}; retry after ${admission.retryAfterSeconds} s`,
      retryAfterSeconds: admission.retryAfterSeconds,
      retryable: true,
    });
  }
  const limitUsd = admission.limitMicros / 1_000_000;
  throw new QuotaError({
    status: 402,
    errorClass: 'invalid_request',
    code: 'budget_exceeded',
    message: `key '${key.name}' has reached its ${admission.period === 'day' ? 'daily' : 'monthly'} budget of $${limitUsd} (UTC ${admission.period})`,
  });
}

/** A bound every budget's search starts past: most bodies are settled by one walk, no search. */
const firstLook = 65_536;

/** The largest input bound {@link budgetThreshold} searches up to. */
const largestSearched = 2 ** 45;

/**
 * The input's upper bound (`estimateUpperBound`) as far as admission can tell two bounds apart:
 * the walk of a large body stops there (`stopAbove`) instead of measuring, and writing out as
 * JSON, all of it; below it the bound is the whole bound, as before. Past it:
 * - tokens per minute: input + output is over the bucket's capacity, and a call is weighed at most
 *   at the capacity (`admitRule`'s `min(tokens, tpm)`): admitted or refused as with the whole bound.
 *   Its reservation, the bound so far, is then still larger than the bucket: it empties a full one
 *   as the whole bound would (only how far below empty it goes, until the settle corrects the
 *   bucket to the billed tokens, is less);
 * - a budget: the reservation, at the dearest model the call may reach, is at or over the largest
 *   limit (a call's own reservation never decides its admission, only that of the calls admitted
 *   while it is in flight, each refused by any reservation that large);
 * - requests per minute only, or a budget without a price: the bound decides nothing (0).
 * A budget's threshold is searched for only when the body is past {@link firstLook} (then walked
 * again as far as it).
 */
function inputBound(
  call: QuotaCall,
  key: KeyQuota,
  output: number,
  reserveFor: ((input: number) => number) | undefined,
): number {
  const bound = (stopAbove: number) =>
    estimateUpperBound({ transcript: call.request.transcript, tools: call.request.tools, stopAbove });
  const tpm = key.limits?.tokensPerMinute;
  const tokens = tpm !== undefined && Number.isFinite(tpm) && tpm > 0 ? Math.max(0, tpm - output) : 0;
  const limits = [key.budget?.usdPerDay, key.budget?.usdPerMonth].filter((usd) => usd !== undefined);
  if (reserveFor === undefined || limits.length === 0) return bound(tokens);
  const first = Math.max(tokens, firstLook);
  const looked = bound(first);
  if (looked <= first) return looked;
  const threshold = Math.max(tokens, budgetThreshold(Math.max(...limits.map(toMicros)), reserveFor));
  return threshold <= first ? looked : bound(threshold);
}

/**
 * The input bound past which the reservation reaches `limitMicros` (prices only grow with the
 * input): the smallest input that reaches it, less one; 0 when none does (no price), infinite
 * when only one past {@link largestSearched} would.
 */
function budgetThreshold(limitMicros: number, reserveFor: (input: number) => number): number {
  if (reserveFor(0) >= limitMicros) return 0;
  let high = 1;
  while (reserveFor(high) < limitMicros) {
    if (high >= largestSearched) return reserveFor(high) > 0 ? Number.POSITIVE_INFINITY : 0;
    high *= 2;
  }
  let low = high / 2;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (reserveFor(middle) >= limitMicros) high = middle;
    else low = middle;
  }
  return high - 1;
}

/**
 * The cost the call could bill at most (input estimate + all of `max_tokens`), micro-dollars, at the
 * model's own entry's prices or else the table's; undefined without a price.
 */
function estimatedMicros(
  modelId: string,
  input: number,
  output: number,
  pricing: QuotaCall['pricing'],
  prices: PriceTable,
): number | undefined {
  const usage: Usage = { input, cacheRead: 0, cacheWrite: 0, output, reasoning: 0 };
  const own = pricing?.[modelId] ?? prices.lookup(modelId);
  const amount = own === undefined ? undefined : computeCost(usage, own, prices.version)?.amount;
  return amount === undefined || !Number.isFinite(amount) ? undefined : Math.ceil(amount * 1_000_000);
}

/**
 * Whether a call of `modelId` can be counted against a budget: its entry or the table prices its
 * input and output. A key with a budget is refused a model without ({@link admitCall}), and its
 * calls never fall back to one: its calls would cost the budget nothing.
 */
export function isPriced(modelId: string, pricing: QuotaCall['pricing'], prices: PriceTable): boolean {
  return estimatedMicros(modelId, 1, 1, pricing, prices) !== undefined;
}

/** The 403 of a key with a budget naming a model without a price. */
function unpricedModel(key: KeyQuota, modelId: string): QuotaError {
  return new QuotaError({
    status: 403,
    errorClass: 'invalid_request',
    code: 'model_not_priced',
    message: `key '${key.name}' has a budget and model '${shown(modelId)}' has no known price, so its calls cannot count toward it; the gateway's operator can give it one under \`pricing:\` in the config`,
  });
}

/**
 * Settles a reservation with the billed usage (none for a call that billed nothing; the reservation
 * for a call its client left before the usage arrived, or whose billed tokens came without a cost).
 * Never throws.
 */
export async function settleCall(
  store: StateStore,
  reservation: Reservation,
  usage: Usage | undefined,
  clientLeft = false,
): Promise<void> {
  const billed = usage === undefined ? undefined : billedTokens(usage);
  const tokens =
    billed === undefined ? 0 : billed.input + billed.cacheRead + billed.cacheWrite + billed.output;
  const amount = usage?.cost?.currency === 'USD' ? usage.cost.amount : 0;
  // Billed tokens without a cost (a bucket its price lacks: cache writes, another model's share)
  // are charged what was reserved, the priced upper bound, never $0 to a budget.
  const costMicros =
    usage?.cost === undefined && tokens > 0
      ? reservation.reserveMicros
      : Number.isFinite(amount) && amount > 0
        ? Math.min(Math.round(amount * 1_000_000), maxCharge)
        : 0;
  // A client that left before the usage arrived is charged what was reserved (the admitted upper
  // bound): the upstream may have billed up to that, and leaving early must not get around a budget.
  const charge =
    usage === undefined && clientLeft
      ? { tokens: reservation.tokens, costMicros: reservation.reserveMicros }
      : { tokens: Math.min(tokens, maxCharge), costMicros };
  try {
    await store.settle(reservation, charge);
  } catch {
    // Reported by the store (WARN once per outage, metric); a settle never fails a served request.
  }
}

/**
 * The most one call is charged, in tokens or micro-dollars (a million dollars): no real call comes
 * near it, and a broken or hostile upstream's usage (2^53 tokens, a search count to match) must not
 * push a key's ledger past exact integers or Redis's 64-bit counters.
 */
const maxCharge = 1_000_000_000_000;

/** `GET /switchyard/v1/keys/{name}/usage`: spend and what remains of the budget, in USD and micro-dollars. */
export async function keyUsage(store: StateStore, key: KeyQuota): Promise<unknown> {
  const usage = await store.usage(key.name, key.budget);
  const usd = (micros: number | undefined) => (micros === undefined ? null : micros / 1_000_000);
  const period = (entry: typeof usage.day) => ({
    period: entry.period,
    spent_usd: usd(entry.spentMicros),
    spent_micros: entry.spentMicros,
    reserved_micros: entry.reservedMicros,
    limit_usd: usd(entry.limitMicros),
    remaining_usd: usd(entry.remainingMicros),
  });
  return {
    key: key.name,
    limits: {
      requests_per_minute: key.limits?.requestsPerMinute ?? null,
      tokens_per_minute: key.limits?.tokensPerMinute ?? null,
    },
    day: period(usage.day),
    month: period(usage.month),
  };
}
