/** Prometheus metrics of one gateway (its own registry, so several gateways never share counters). */
import { Counter, Gauge, Registry } from 'prom-client';
import { PlainHistogram } from './histogram.ts';
import { billedTokens, type Usage } from '../core/usage.ts';

/** The gateway's metrics. */
export interface GatewayMetrics {
  registry: Registry;
  requests: Counter<'protocol' | 'model' | 'status' | 'route'>;
  errors: Counter<'protocol' | 'class'>;
  latency: PlainHistogram;
  timeToFirstToken: PlainHistogram;
  tokens: Counter<'protocol' | 'model' | 'kind'>;
  cost: Counter<'protocol' | 'model'>;
  inFlight: Gauge<'protocol'>;
  /** WebSocket connections open now (`/switchyard/v1/ws`). */
  openWebSockets: Gauge;
  circuits: Gauge<'key' | 'state'>;
  /** Failed shared-state operations (Redis down or slower than `state_timeout_ms`). */
  stateFailures: Counter<'operation' | 'outcome'>;
  /** Each protocol and model's usage series, looked up once per request. */
  usage: Map<string, UsageSeries>;
}

/** The token and cost series of one protocol and model. */
interface UsageSeries {
  input: Tally;
  cacheRead: Tally;
  cacheWrite: Tally;
  output: Tally;
  cost: Tally;
}

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Creates the metrics in a fresh registry. */
export function createMetrics(): GatewayMetrics {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    requests: new Counter({
      name: 'switchyard_gateway_requests_total',
      help: 'Requests by protocol, model, status and route (generate, count_tokens, stored_response, models, key_usage, metrics, other)',
      labelNames: ['protocol', 'model', 'status', 'route'],
      registers,
      collect: flushTallies,
    }),
    errors: new Counter({
      name: 'switchyard_gateway_errors_total',
      help: 'Failed requests by error class',
      labelNames: ['protocol', 'class'],
      registers,
      collect: flushTallies,
    }),
    latency: new PlainHistogram({
      name: 'switchyard_gateway_request_duration_seconds',
      help: 'Request duration',
      labelNames: ['protocol', 'stream'],
      buckets,
      registers,
    }),
    timeToFirstToken: new PlainHistogram({
      name: 'switchyard_gateway_time_to_first_token_seconds',
      help: 'Time to the first content byte of streams',
      labelNames: ['protocol'],
      buckets,
      registers,
    }),
    tokens: new Counter({
      name: 'switchyard_gateway_tokens_total',
      help: 'Tokens by kind (input, cache_read, cache_write, output)',
      labelNames: ['protocol', 'model', 'kind'],
      registers,
      collect: flushTallies,
    }),
    cost: new Counter({
      name: 'switchyard_gateway_cost_usd_total',
      help: 'Cost of served calls',
      labelNames: ['protocol', 'model'],
      registers,
      collect: flushTallies,
    }),
    inFlight: new Gauge({
      name: 'switchyard_gateway_in_flight_requests',
      help: 'Requests being served',
      labelNames: ['protocol'],
      registers,
      collect: flushTallies,
    }),
    openWebSockets: new Gauge({
      name: 'switchyard_gateway_open_websockets',
      help: 'WebSocket connections open now',
      registers,
    }),
    circuits: new Gauge({
      name: 'switchyard_gateway_circuit_state',
      help: 'Availability state per provider/model (1 for the current state)',
      labelNames: ['key', 'state'],
      registers,
    }),
    stateFailures: new Counter({
      name: 'switchyard_state_failures_total',
      help: 'Shared-state operations that failed, by operation and outcome (local: served from local state; refused: a 503)',
      labelNames: ['operation', 'outcome'],
      registers,
    }),
    usage: new Map(),
  };
}

/**
 * A counter's or gauge's series as a plain number: a request adds to it, and the sum reaches
 * prom-client when the metric is collected (a scrape). prom-client hashes and validates the labels on
 * every `inc` — a child from `labels()` too — which was most of the gateway's per-request metrics cost.
 */
export class Tally {
  pending = 0;
  readonly labels: Record<string, string>;
  constructor(labels: Record<string, string>) {
    this.labels = labels;
  }
  inc(value = 1): void {
    this.pending += value;
  }
  dec(value = 1): void {
    this.pending -= value;
  }
}

type Labelled = { labelNames?: readonly string[] };
const series = new WeakMap<object, Map<string, Tally>>();

/**
 * A counter's or gauge's series for these label values (in `labelNames` order), made once. Only for
 * label values from a bounded set (protocol, canonical model id, status, class, route).
 */
export function seriesOf(metric: Counter<string> | Gauge<string>, ...values: string[]): Tally {
  let cache = series.get(metric);
  if (cache === undefined) series.set(metric, (cache = new Map()));
  const key = values.join('\u0000');
  let tally = cache.get(key);
  if (tally === undefined) {
    const names = (metric as unknown as Labelled).labelNames ?? [];
    const labels: Record<string, string> = {};
    names.forEach((name, index) => (labels[name] = values[index] ?? ''));
    cache.set(key, (tally = new Tally(labels)));
  }
  return tally;
}

/** Adds the tallies' sums to the metric (its `collect`, run on every scrape). */
function flushTallies(this: Counter<string> | Gauge<string>): void {
  for (const tally of series.get(this)?.values() ?? []) {
    // Every series is written, at 0 too (an idle in-flight gauge); a gauge's sum may be negative.
    this.inc(tally.labels, tally.pending);
    tally.pending = 0;
  }
}

/** Counts a call's usage and cost; `model` is the canonical id (or `unknown`), never the client's text. */
export function recordUsage(metrics: GatewayMetrics, protocol: string, model: string, usage: Usage): void {
  const key = `${protocol}\u0000${model}`;
  let series = metrics.usage.get(key);
  if (series === undefined)
    metrics.usage.set(
      key,
      (series = {
        input: seriesOf(metrics.tokens, protocol, model, 'input'),
        cacheRead: seriesOf(metrics.tokens, protocol, model, 'cache_read'),
        cacheWrite: seriesOf(metrics.tokens, protocol, model, 'cache_write'),
        output: seriesOf(metrics.tokens, protocol, model, 'output'),
        cost: seriesOf(metrics.cost, protocol, model),
      }),
    );
  // Every token billed, other models' in `byModel` included (counted under the model served).
  const billed = usage.byModel === undefined ? usage : billedTokens(usage);
  series.input.inc(billed.input);
  series.cacheRead.inc(billed.cacheRead);
  series.cacheWrite.inc(billed.cacheWrite);
  series.output.inc(billed.output);
  if (usage.cost !== undefined && usage.cost.currency === 'USD') series.cost.inc(usage.cost.amount);
}
